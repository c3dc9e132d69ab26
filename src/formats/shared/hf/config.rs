//! `config.json` as transformers reads it, for what the architecture check needs: the class
//! (`architectures[0]`), `model_type`, `quantization_config`, the dtype, and every top-level
//! number, bool and null. A key given twice keeps its last value, as Python's `json` does.

use crate::formats::shared::expr::Value;
use crate::formats::shared::json::{Error, Parser, Token};
use std::collections::HashMap;

/// The nesting rtenx reads config.json to; transformers' configs nest a few levels.
const MAX_DEPTH: usize = 64;

/// What config.json says.
#[derive(Default)]
pub struct Config {
    pub architecture: Option<String>,
    pub model_type: Option<String>,
    /// `quantization_config.quant_method`, `"unnamed"` for a quantization_config without
    /// one, or `"mlx"` for MLX's `quantization`.
    pub quantization: Option<String>,
    /// `torch_dtype`, or `dtype` (transformers 5's name).
    pub dtype: Option<String>,
    pub values: HashMap<String, Value>,
}

/// Reads config.json's `bytes`.
pub fn read(bytes: &[u8]) -> Result<Config, Error> {
    let mut p = Parser::new(bytes, MAX_DEPTH);
    let mut config = Config::default();
    p.object_document()?;
    while let Some(key) = p.key_or_end()? {
        let key = key.unescape().into_owned();
        let Some((_, token)) = p.token()? else {
            break;
        };
        match (key.as_str(), token) {
            ("architectures", Token::Array) => {
                config.architecture = None;
                while let Some((_, item)) = p.item_or_end()? {
                    match item {
                        Token::Str(s) if config.architecture.is_none() => {
                            config.architecture = Some(s.unescape().into_owned());
                        }
                        other => p.finish_value(&other)?,
                    }
                }
            }
            // MLX writes its own `quantization` object ({group_size, bits}) instead.
            ("quantization", Token::Object) => {
                p.finish_value(&Token::Object)?;
                config.quantization.get_or_insert_with(|| "mlx".to_owned());
            }
            ("quantization_config", Token::Object) => {
                let mut method = "unnamed".to_owned();
                while let Some(inner) = p.key_or_end()? {
                    let Some((_, token)) = p.token()? else {
                        break;
                    };
                    match token {
                        Token::Str(s) if inner.is("quant_method") => {
                            method = s.unescape().into_owned();
                        }
                        other => p.finish_value(&other)?,
                    }
                }
                config.quantization = Some(method);
            }
            (key, Token::Str(s)) => {
                let text = s.unescape().into_owned();
                match key {
                    "model_type" => config.model_type = Some(text),
                    "torch_dtype" | "dtype" => config.dtype = Some(text),
                    _ => {}
                }
                config.values.remove(key);
            }
            (_, Token::Number(n)) => {
                let value = n.as_i64().map_or(Value::Float(n.as_f64()), Value::Int);
                config.values.insert(key, value);
            }
            (_, Token::Bool(b)) => {
                config.values.insert(key, Value::Bool(b));
            }
            (_, Token::Null) => {
                config.values.insert(key, Value::Null);
            }
            (key, other) => {
                if key == "architectures" {
                    config.architecture = None;
                }
                config.values.remove(key);
                p.finish_value(&other)?;
            }
        }
    }
    p.end()?;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_the_check_needs_and_the_last_of_a_repeated_key() {
        let text = br#"{"architectures": ["LlamaForCausalLM", "X"], "hidden_size": 64,
            "rms_norm_eps": 1e-06, "tie_word_embeddings": false, "head_dim": null,
            "rope_scaling": {"type": "linear"}, "model_type": "llama",
            "torch_dtype": "bfloat16", "hidden_size": 32,
            "quantization_config": {"bits": 4, "quant_method": "gptq"}}"#;
        let c = read(text).unwrap();
        assert_eq!(c.architecture.as_deref(), Some("LlamaForCausalLM"));
        assert_eq!(c.model_type.as_deref(), Some("llama"));
        assert_eq!(c.dtype.as_deref(), Some("bfloat16"));
        assert_eq!(c.quantization.as_deref(), Some("gptq"));
        assert_eq!(c.values["hidden_size"], Value::Int(32));
        assert_eq!(c.values["rms_norm_eps"], Value::Float(1e-6));
        assert_eq!(c.values["tie_word_embeddings"], Value::Bool(false));
        assert_eq!(c.values["head_dim"], Value::Null);
        let mlx = read(br#"{"quantization": {"group_size": 64, "bits": 4}, "a": 1}"#).unwrap();
        assert_eq!(mlx.quantization.as_deref(), Some("mlx"));
        assert_eq!(mlx.values["a"], Value::Int(1));
        assert!(read(b"[1]").is_err());
        assert!(read(b"{\"a\": NaN}").is_err());
    }
}
