//! The oldest rten release that can load a file, from the newest feature it uses.

use crate::inventory::RuntimeRequirement;

/// The newest requirement seen so far.
pub struct MinVersion {
    version: (u32, u32, u32),
    reason: String,
}

fn parse(v: &str) -> (u32, u32, u32) {
    let mut parts = v.split('.').map(|p| p.parse().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

impl MinVersion {
    /// Starts at the first published rten.
    pub fn new() -> Self {
        MinVersion {
            version: (0, 1, 0),
            reason: "the base schema".into(),
        }
    }

    /// Raises the minimum to `version` if it is newer; `reason` names the feature.
    pub fn require(&mut self, version: &str, reason: impl FnOnce() -> String) {
        let v = parse(version);
        if v > self.version {
            self.version = v;
            self.reason = reason();
        }
    }

    /// The result as an inventory entry.
    pub fn finish(self) -> RuntimeRequirement {
        let (a, b, c) = self.version;
        RuntimeRequirement {
            runtime: "rten",
            min_version: format!("{a}.{b}.{c}"),
            reason: self.reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MinVersion;

    #[test]
    fn keeps_the_newest_requirement_and_its_reason() {
        let mut v = MinVersion::new();
        v.require("0.14.0", || "int8 data".into());
        v.require("0.11.0", || "V2".into());
        v.require("0.4.0", || "metadata".into());
        let r = v.finish();
        assert_eq!(
            (r.min_version.as_str(), r.reason.as_str()),
            ("0.14.0", "int8 data")
        );
    }
}
