//! Rules for OpenSSF model signatures (codes SG001..): whether the folder or file is the model
//! that was signed. They are stricter than `model_signing verify` where it accepts what a
//! signature does not vouch for; each rule says where.

crate::rules! {
    group = ("SG", "Model signatures");
    /// The signature file cannot be read.
    ///
    /// ## What it does
    /// The bundle (`model.sig`) or the statement in its payload is not the JSON of a Sigstore
    /// bundle and an in-toto statement: broken JSON, a key repeated in one object, base64 or
    /// hex that does not decode, a required field missing, or lists past rtenx's limits.
    ///
    /// ## Why
    /// Nothing can be verified. `model_signing`'s Python `json` keeps the last of repeated
    /// keys; rtenx refuses them, since two readers could then see two statements.
    ///
    /// ## How to fix
    /// Sign the model again with `model_signing sign`.
    UNREADABLE = ("SG001", "signature-unreadable", Error);
    /// The signature is of a format, type or hashing rtenx does not know.
    ///
    /// ## What it does
    /// The bundle media type is not `application/vnd.dev.sigstore.bundle.v0.3+json`, the
    /// payload type not `application/vnd.in-toto+json`, the statement not in-toto v1, the
    /// predicate not `model_signing`'s (v1.0, or v0.2's `Digests/v0.1`), the subject not one,
    /// the method not `files` or `shards`, or the hash not sha256, blake2b or blake3.
    ///
    /// ## Why
    /// `model_signing` checks only the predicate type and trusts the rest; rtenx verifies
    /// nothing it cannot read exactly.
    ///
    /// ## How to fix
    /// Sign with `model_signing` 1.x.
    UNSUPPORTED = ("SG002", "signature-unsupported", Error);
    /// The subject's root digest is not the digest of the signed resources.
    ///
    /// ## What it does
    /// The statement's subject carries SHA-256 over every resource digest, in order; rtenx
    /// computes it again.
    ///
    /// ## Why
    /// Other documents refer to the model by this digest; one that does not match the
    /// resources names another model.
    ///
    /// ## How to fix
    /// Sign the model again.
    ROOT_DIGEST_MISMATCH = ("SG003", "root-digest-mismatch", Error);
    /// The signature covers no file of the model.
    ///
    /// ## What it does
    /// The signed manifest lists no resource, for instance because the model's own folder was
    /// passed to `--ignore-paths` when signing.
    ///
    /// ## Why
    /// `model_signing verify` accepts such a signature for any content whatever; rtenx refuses
    /// it: a signature that vouches for nothing is not a signature of this model.
    ///
    /// ## How to fix
    /// Sign again without ignoring the model itself.
    NOTHING_COVERED = ("SG004", "nothing-covered", Error);
    /// A signed resource name is not a normal, unique path inside the model.
    ///
    /// ## What it does
    /// Names must be POSIX paths relative to the model with no `..`, `.` or empty component,
    /// not absolute (a single-file model's one resource is `.`), shards `path:start:end`, and
    /// each file or shard listed once.
    ///
    /// ## Why
    /// `model_signing` keeps the last of repeated names and, with `--ignore_unsigned_files`,
    /// hashes whatever a name points to, `../outside` included; its signer never writes such
    /// names, so a signature with them was made by hand. rtenx opens nothing outside the model.
    ///
    /// ## How to fix
    /// Sign the model again with `model_signing sign`.
    BAD_RESOURCE_NAME = ("SG005", "bad-resource-name", Error);
    /// A file in the model is not covered by the signature.
    ///
    /// ## What it does
    /// Every file under the model folder, except the signed ignore paths and the signature
    /// file, must be in the manifest (for shards, every byte of it). The git paths are left
    /// out only when the signature records them (as `model_signing sign` does unless given
    /// `--no-ignore-git-paths`).
    ///
    /// ## Why
    /// A file added after signing can change what loading the model does.
    ///
    /// ## How to fix
    /// Remove the file, or sign the model again with it.
    FILE_NOT_SIGNED = ("SG006", "file-not-signed", Error);
    /// A signed file is not in the model, or cannot be read.
    ///
    /// ## What it does
    /// Every resource of the manifest must be a regular file in the model with the signed
    /// bytes (for shards, the file must be as long as its shards say).
    ///
    /// ## How to fix
    /// Restore the file from the signed release.
    SIGNED_FILE_MISSING = ("SG007", "signed-file-missing", Error);
    /// A file's (or shard's) digest is not the signed one.
    ///
    /// ## What it does
    /// Each file or shard is hashed with the signed hash type (SHA-256, BLAKE2b or BLAKE3) and
    /// compared with the manifest; the message gives both digests.
    ///
    /// ## Why
    /// The file changed after it was signed. `model_signing verify`'s command line always
    /// hashes whole files with SHA-256 and so fails every sharded, BLAKE2 or BLAKE3 signature;
    /// rtenx hashes as the signature says.
    ///
    /// ## How to fix
    /// Restore the file from the signed release.
    DIGEST_MISMATCH = ("SG008", "digest-mismatch", Error);
    /// A symlink in the model is not allowed by the signature, or leads out of the model.
    ///
    /// ## What it does
    /// Symlinks are followed only when the signature was made with `allow_symlinks`, and then
    /// only to a regular file inside the model. Anything else that is not a regular file or a
    /// folder (a FIFO, a socket, a device) is reported too.
    ///
    /// ## Why
    /// `model_signing` follows allowed symlinks wherever they point; a link out of the model
    /// makes its content depend on files the signature does not cover.
    ///
    /// ## How to fix
    /// Replace the link with the file it points to, and sign again.
    SYMLINK = ("SG009", "signed-model-symlink", Error);
    /// One signature of the envelope does not verify with the given or certified key.
    ///
    /// ## What it does
    /// Every signature of the DSSE envelope is checked against `--public-key`, or the key of
    /// the signer's certificate once its chain is checked (ECDSA P-256, P-384 or P-521 over
    /// the DSSE PAE, or `model_signing` 0.2.0's compat PAE); each one that does not verify is
    /// reported, while one that does is enough (SG011).
    ///
    /// ## Why
    /// DSSE counts only signatures by trusted keys and ignores the others, so this is a
    /// warning. `model_signing` checks only the first signature.
    ///
    /// ## How to fix
    /// Drop signatures by other keys from the bundle, or give their key.
    SIGNATURE_INVALID = ("SG010", "signature-invalid", Warning);
    /// No signature of the envelope verifies with the given or certified key.
    ///
    /// ## What it does
    /// The payload was edited, or it was signed with another key. The bundle's key hint is
    /// never trusted: only the key given on the command line or in the settings counts, or
    /// the key of the bundle's certificate once its chain leads to a certificate given with
    /// `--certificate-chain`. A bundle with no certificate, checked with `--certificate-chain`,
    /// is reported here too.
    ///
    /// ## How to fix
    /// Check that the key is the publisher's; if it is, the signature or the payload was
    /// changed: get the model again from its publisher.
    SIGNATURE_UNVERIFIED = ("SG011", "signature-unverified", Error);
    /// The signature was not verified: no key or certificate was given.
    ///
    /// ## What it does
    /// The files were checked against the signed manifest, but without `--public-key` or
    /// `--certificate-chain` anyone could have made that manifest.
    ///
    /// ## How to fix
    /// Give the publisher's public key with `--public-key FILE.pem`, or the certificate
    /// authority that issued the signer's certificate with `--certificate-chain FILE.pem`.
    SIGNATURE_NOT_CHECKED = ("SG012", "signature-not-checked", Info);
    /// No verified signature, and one is required.
    ///
    /// ## What it does
    /// With `--require-signature`, a model folder without `model.sig` (or the file named by
    /// `--signature`) is an error, and so is a signature that could not be verified because
    /// key or certificate was given (SG012 otherwise).
    ///
    /// ## How to fix
    /// Get the model with its signature, or sign it with `model_signing sign`.
    SIGNATURE_MISSING = ("SG013", "signature-missing", Error);
    /// A certificate in the bundle or given cannot be read, or holds what rtenx cannot verify.
    ///
    /// ## What it does
    /// Each certificate must be DER X.509 (at most 64 KiB), signed with ECDSA, RSA PKCS#1
    /// v1.5 or RSASSA-PSS (MGF1 with the same hash) and SHA-256, 384 or 512 (the same
    /// algorithm named inside and outside its signed part), with every extension read once
    /// and no critical extension other than basicConstraints, keyUsage, extKeyUsage and
    /// subjectAltName. A certificate authority's key must be ECDSA P-256, P-384 or P-521, or
    /// RSA (up to 8192 bits); the signer's key must be ECDSA.
    ///
    /// ## Why
    /// A critical extension is one a verifier must understand or refuse (RFC 5280); rtenx
    /// verifies nothing it cannot read exactly. `model_signing` 1.1.1 signs and verifies the
    /// envelope only with ECDSA keys (with an RSA key, signing fails on "object has no
    /// attribute 'curve'", and so does its verifier on a signer's certificate swapped for an
    /// RSA one), so an RSA signer's certificate is not of a signature it made.
    ///
    /// ## How to fix
    /// Sign with a certificate of an ECDSA key, issued by a CA that signs with one of these
    /// algorithms.
    CERTIFICATE_UNREADABLE = ("SG014", "certificate-unreadable", Error);
    /// No chain leads from the signer's certificate to a certificate given.
    ///
    /// ## What it does
    /// The chain is built from the bundle's first certificate (the signer's), each issuer
    /// found by name among the bundle's other certificates and those given with
    /// `--certificate-chain` (in any order, several to a PEM file), up to the first
    /// certificate given: a root, or an intermediate the user trusts. Each issuer's key must
    /// verify the signature over its child's signed part; where several certificates bear
    /// the issuer's name, those valid now are tried first. The message says where the chain
    /// breaks: an issuer that is nowhere, one whose key does not verify the signature (a root
    /// of the same name but another key), or a root that is not among those given.
    ///
    /// ## Why
    /// Only the certificates the user gives are trusted; those in the bundle are not, since
    /// the signature does not cover them. A certificate given is a trust anchor (RFC 5280
    /// 6.1.1): the chain ends there, and its own signature is not checked, so a root
    /// self-signed with SHA-1, as many long-lived roots are, is no alarm. Trusting an
    /// organisation's issuing CA rather than its root is common; `model_signing verify` refuses
    /// such a chain ("unable to get issuer certificate": OpenSSL without partial chains wants
    /// a self-signed root), rtenx accepts it, holding that CA to its role and dates like any
    /// issuer (SG016, SG018).
    ///
    /// ## How to fix
    /// Give the root, or the issuing CA you trust (and, if the bundle lacks them, the
    /// intermediates below it) of the publisher's certificate authority with
    /// `--certificate-chain`.
    CERTIFICATE_UNTRUSTED = ("SG015", "certificate-untrusted", Error);
    /// A certificate that issues another in the chain is not a certificate authority.
    ///
    /// ## What it does
    /// Every issuer in the chain, up to and including the given certificate it ends at, must
    /// have basicConstraints with cA true, keyCertSign in its keyUsage when it has one, and no
    /// more CA certificates below it (self-issued ones aside, as RFC 5280 counts them) than
    /// its pathLenConstraint allows.
    ///
    /// ## Why
    /// A certificate that is not a CA may not vouch for others; otherwise any signer could
    /// issue certificates in its CA's name.
    ///
    /// ## How to fix
    /// Have the signer's certificate issued by a CA certificate.
    ISSUER_NOT_CA = ("SG016", "issuer-not-ca", Error);
    /// The signer's certificate is not for signing code.
    ///
    /// ## What it does
    /// The bundle's first certificate must say it may sign: a keyUsage, if present, with
    /// digitalSignature; an extKeyUsage, if present, with codeSigning; and at least one of
    /// the two.
    ///
    /// ## Why
    /// `model_signing verify` accepts either one alone, so a certificate whose keyUsage has
    /// digitalSignature but whose extKeyUsage allows only TLS servers passes; RFC 5280 holds a
    /// certificate to both, and rtenx does.
    ///
    /// ## How to fix
    /// Sign with a certificate issued for code signing.
    LEAF_CANNOT_SIGN = ("SG017", "leaf-cannot-sign", Error);
    /// A certificate of the chain is expired, or not valid yet.
    ///
    /// ## What it does
    /// Every certificate of the chain, the given certificate it ends at included, must be
    /// valid at the time of the check (the system clock): notBefore at or before it, notAfter
    /// at or after it. The message names the certificate, the field and its date. Where the
    /// user gives both an expired root and its re-issue (same name and key), the chain goes
    /// through the one valid now.
    ///
    /// ## Why
    /// `model_signing verify` checks the chain at the signer certificate's own notBefore,
    /// since the bundle has no trusted time, so it accepts a certificate that expired years
    /// ago, one valid only from 2080, and a chain whose CAs all expired in 2010. The
    /// certificates are not covered by the signature either: a leaf swapped for an expired
    /// re-issue of the same key still verifies. rtenx holds them to the time now. A timestamp
    /// in the bundle cannot be checked offline (SG019), so it does not change this. RFC 5280
    /// treats a trust anchor as input rather than as part of the path, so it leaves an
    /// anchor's dates to the user; rtenx, like OpenSSL (and so `model_signing`), holds the
    /// given certificate to its dates too: an expired anchor is a stale copy whose CA no
    /// longer answers for what it issued (revocation stops with it).
    ///
    /// ## How to fix
    /// Sign the model again with a current certificate.
    CERTIFICATE_NOT_VALID_NOW = ("SG018", "certificate-not-valid-now", Error);
    /// The bundle's timestamp or transparency-log entry was not checked.
    ///
    /// ## What it does
    /// The bundle carries an RFC 3161 timestamp or a transparency-log entry, which could say
    /// when it was signed; checking one needs the log or the timestamp authority, and rtenx
    /// works offline. The certificates are held to the time now instead (SG018).
    ///
    /// ## How to fix
    /// Nothing, offline; to rely on the time of signing, verify the bundle against its log
    /// with the Sigstore tools.
    TIMESTAMP_NOT_CHECKED = ("SG019", "timestamp-not-checked", Info);
    /// A certificate of the chain is signed with a broken hash or a small RSA key.
    ///
    /// ## What it does
    /// Refuses a signature over a certificate made with SHA-1 (RSA PKCS#1 v1.5, RSASSA-PSS
    /// or ECDSA), MD5 or MD2, or by an RSA key of fewer than 2048 bits. The trust anchor's
    /// own self-signature is not checked (SG015), so an old root self-signed with SHA-1 is
    /// not reported; what it signs is.
    ///
    /// ## Why
    /// SHA-1 collisions are practical (SHAttered, 2017; a chosen-prefix collision was used
    /// to forge a certificate in 2020), and RSA keys under 2048 bits are below what NIST
    /// (SP 800-131A) and the CA/Browser Forum allow since 2014: a certificate signed so may
    /// be forged. `model_signing verify` accepts both.
    ///
    /// ## How to fix
    /// Have the certificate re-issued by a CA that signs with SHA-256 or stronger and an RSA
    /// key of at least 2048 bits (or ECDSA).
    CERTIFICATE_WEAK = ("SG020", "certificate-weak", Error);
}
