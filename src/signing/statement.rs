//! The in-toto Statement v1 a bundle signs: its subjects and the model_signing predicate
//! (v1.0: serialization and resources; the v0.2 `Digests/v0.1` form lists the files as
//! subjects).

use super::json::{
    boolean, error, hex, items, members, next, text, text_of, whole, Result, Value, MAX_DEPTH,
};
use crate::formats::shared::json::Parser;

/// The in-toto statement `_type`.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// The predicate type of `model_signing` 1.x.
pub const PREDICATE_V1: &str = "https://model_signing/signature/v1.0";
/// The predicate type of `model_signing` 0.2 (its files as subjects).
pub const PREDICATE_V02: &str = "https://model_signing/Digests/v0.1";

/// Resources (or v0.2 subjects) read at most: a model of a million files or shards.
pub const MAX_RESOURCES: usize = 1 << 20;
/// Ignore paths read at most.
pub const MAX_IGNORE_PATHS: usize = 4096;

/// A statement as written, nothing checked against the model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Statement {
    /// `_type`.
    pub kind: String,
    /// `subject`.
    pub subjects: Vec<Subject>,
    /// `predicateType`.
    pub predicate_type: String,
    /// The v1.0 predicate, when `predicateType` is v1.0.
    pub predicate: Option<Predicate>,
}

/// A subject: the model's name and root digest (v1.0), or one file (v0.2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subject {
    /// `name`.
    pub name: String,
    /// `digest.sha256`, decoded from hex.
    pub sha256: Option<Vec<u8>>,
}

/// `predicate` of `https://model_signing/signature/v1.0`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Predicate {
    /// `serialization`.
    pub serialization: Serialization,
    /// `resources`, in order.
    pub resources: Vec<Resource>,
}

/// How the model was hashed (`predicate.serialization`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Serialization {
    /// `files` or `shards`.
    pub method: String,
    /// `sha256`, `blake2b` or `blake3`.
    pub hash_type: String,
    /// Bytes per shard (`shards` only).
    pub shard_size: Option<u64>,
    /// Whether symlinks were followed when signing.
    pub allow_symlinks: bool,
    /// Paths relative to the model that were not signed.
    pub ignore_paths: Vec<String>,
}

/// One file or shard and its digest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resource {
    /// A POSIX path relative to the model (`.` for a single-file model), with
    /// `:start:end` for a shard.
    pub name: String,
    /// `algorithm` (`sha256`, `blake2b-sharded-16`, ...).
    pub algorithm: String,
    /// `digest`, decoded from hex.
    pub digest: Vec<u8>,
    /// Where the resource is in the payload.
    pub at: u64,
}

/// Reads the statement in a bundle's payload.
pub fn read(bytes: &[u8]) -> Result<Statement> {
    let mut p = Parser::new(bytes, MAX_DEPTH);
    let mut st = Statement::default();
    let first = next(&mut p)?;
    // The predicate is read once its type is known, so remember where it is.
    let mut predicate_at = None;
    members(&mut p, first, "the statement", |p, key| {
        match key {
            "_type" => st.kind = text(p, "_type")?,
            "predicateType" => st.predicate_type = text(p, "predicateType")?,
            "subject" => {
                let value = next(p)?;
                items(p, value, "subject", MAX_RESOURCES, |p, item| {
                    st.subjects.push(subject(p, item)?);
                    Ok(())
                })?;
            }
            "predicate" => {
                let (at, token) = next(p)?;
                predicate_at = Some(at);
                p.finish_value(&token)?;
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    p.end()?;
    if st.predicate_type == PREDICATE_V1 {
        let Some(at) = predicate_at else {
            return error(0, "the statement has no predicate");
        };
        let rest = usize::try_from(at)
            .ok()
            .and_then(|at| bytes.get(at..))
            .unwrap_or(&[]);
        let mut p = Parser::new(rest, MAX_DEPTH);
        let value = next(&mut p)?;
        st.predicate = Some(predicate(&mut p, value).map_err(|mut e| {
            e.at += at;
            e
        })?);
    }
    Ok(st)
}

fn subject<'a>(p: &mut Parser<'a>, value: Value<'a>) -> Result<Subject> {
    let mut s = Subject::default();
    members(p, value, "a subject", |p, key| {
        match key {
            "name" => s.name = text(p, "a subject's name")?,
            "digest" => {
                let value = next(p)?;
                members(p, value, "a subject's digest", |p, key| {
                    if key != "sha256" {
                        return Ok(p.skip_value()?);
                    }
                    let (at, token) = next(p)?;
                    let digest = text_of((at, token), "digest.sha256")?;
                    match hex(&digest) {
                        Some(d) => s.sha256 = Some(d),
                        None => return error(at, "digest.sha256 is not hex"),
                    }
                    Ok(())
                })?;
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    Ok(s)
}

fn predicate<'a>(p: &mut Parser<'a>, value: Value<'a>) -> Result<Predicate> {
    let at = value.0;
    let mut pred = Predicate::default();
    let (mut saw_serialization, mut saw_resources) = (false, false);
    members(p, value, "the predicate", |p, key| {
        match key {
            "serialization" => {
                let value = next(p)?;
                pred.serialization = serialization(p, value)?;
                saw_serialization = true;
            }
            "resources" => {
                let value = next(p)?;
                items(p, value, "resources", MAX_RESOURCES, |p, item| {
                    pred.resources.push(resource(p, item)?);
                    Ok(())
                })?;
                saw_resources = true;
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    match (saw_serialization, saw_resources) {
        (false, _) => error(at, "the predicate has no serialization"),
        (_, false) => error(at, "the predicate has no resources"),
        _ => Ok(pred),
    }
}

fn serialization<'a>(p: &mut Parser<'a>, value: Value<'a>) -> Result<Serialization> {
    let at = value.0;
    let mut s = Serialization::default();
    members(p, value, "serialization", |p, key| {
        match key {
            "method" => s.method = text(p, "serialization.method")?,
            "hash_type" => s.hash_type = text(p, "serialization.hash_type")?,
            "shard_size" => s.shard_size = Some(whole(p, "serialization.shard_size")?),
            "allow_symlinks" => s.allow_symlinks = boolean(p, "serialization.allow_symlinks")?,
            "ignore_paths" => {
                let value = next(p)?;
                items(p, value, "ignore_paths", MAX_IGNORE_PATHS, |_, item| {
                    s.ignore_paths.push(text_of(item, "an ignore path")?);
                    Ok(())
                })?;
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    if s.method.is_empty() || s.hash_type.is_empty() {
        return error(at, "serialization has no method or no hash_type");
    }
    Ok(s)
}

fn resource<'a>(p: &mut Parser<'a>, value: Value<'a>) -> Result<Resource> {
    let at = value.0;
    let mut r = Resource {
        at,
        ..Resource::default()
    };
    let mut digest = None;
    members(p, value, "a resource", |p, key| {
        match key {
            "name" => r.name = text(p, "a resource's name")?,
            "algorithm" => r.algorithm = text(p, "a resource's algorithm")?,
            "digest" => {
                let value = next(p)?;
                digest = Some((value.0, text_of(value, "a resource's digest")?));
            }
            _ => p.skip_value()?,
        }
        Ok(())
    })?;
    let Some((digest_at, digest)) = digest else {
        return error(at, "a resource has no digest");
    };
    r.digest = match hex(&digest) {
        Some(d) if !d.is_empty() => d,
        _ => return error(digest_at, "a resource's digest is not hex"),
    };
    Ok(r)
}
