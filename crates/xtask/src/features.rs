//! Which WebAssembly features the shipped module uses, derived from the
//! module itself, and whether the README's supported browsers say the same.
//!
//! The README promises the browsers whose WebAssembly has what the module
//! uses. This check validates the built module against exactly the features
//! the README names (the 1.0 core plus the proposals below): a new feature
//! creeping in (SIMD, threads, tail calls) fails it, and so does a named
//! feature the module no longer needs, so the browser line is never stale.

use std::path::Path;

use wasmparser::{Validator, WasmFeatures};

/// The post-1.0 features the README's browser line names, as it names them.
const NAMED: [(WasmFeatures, &str); 5] = [
    (WasmFeatures::BULK_MEMORY, "bulk memory"),
    (WasmFeatures::REFERENCE_TYPES, "reference types"),
    (WasmFeatures::MULTI_VALUE, "multi-value"),
    (
        WasmFeatures::SATURATING_FLOAT_TO_INT,
        "saturating float-to-int",
    ),
    (WasmFeatures::SIGN_EXTENSION, "sign extension"),
];

fn allowed() -> WasmFeatures {
    NAMED
        .iter()
        .fold(WasmFeatures::WASM1, |features, (feature, _)| {
            features.union(*feature)
        })
}

fn valid(wasm: &[u8], features: WasmFeatures) -> Result<(), String> {
    Validator::new_with_features(features)
        .validate_all(wasm)
        .map(drop)
        .map_err(|error| error.to_string())
}

/// The named features `wasm` needs: each one without which it does not validate.
pub fn used(wasm: &[u8]) -> Result<Vec<&'static str>, String> {
    valid(wasm, allowed()).map_err(|error| {
        format!("the module uses a feature the supported browsers are not promised: {error}")
    })?;
    Ok(NAMED
        .iter()
        .filter(|(feature, _)| valid(wasm, allowed().difference(*feature)).is_err())
        .map(|(_, name)| *name)
        .collect())
}

/// The built module's features against the README's browser line.
pub fn check(wasm: &Path, readme: &Path) -> Result<String, String> {
    let bytes = std::fs::read(wasm).map_err(|error| format!("{}: {error}", wasm.display()))?;
    let used = used(&bytes)?;
    let readme = std::fs::read_to_string(readme).map_err(|error| error.to_string())?;
    // The paragraph that promises the browsers, its lines joined.
    let line = readme
        .split("\n\n")
        .find(|paragraph| paragraph.contains("Baton runs in every browser"))
        .ok_or("the README names no supported browsers")?
        .replace('\n', " ");
    for (_, name) in NAMED {
        let named = line.contains(name);
        if named != used.contains(&name) {
            return Err(format!(
                "the README's browser line {} {name}, and the module {}",
                if named { "names" } else { "does not name" },
                if named { "does not use it" } else { "uses it" },
            ));
        }
    }
    Ok(format!(
        "the module uses WebAssembly 1.0 and {}, as the README's browser line says",
        used.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module whose one function is `i32.extend8_s`: sign extension only.
    const SIGN_EXTENDING: &[u8] = &[
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
        0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f, // type (i32) -> i32
        0x03, 0x02, 0x01, 0x00, // one function of type 0
        0x0a, 0x07, 0x01, 0x05, 0x00, 0x20, 0x00, 0xc0, 0x0b, // local.get 0; i32.extend8_s
    ];

    /// The same with a SIMD instruction (`v128.const`, dropped).
    const SIMD: &[u8] = &[
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
        0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type () -> ()
        0x03, 0x02, 0x01, 0x00, // one function of type 0
        0x0a, 0x17, 0x01, 0x15, 0x00, 0xfd, 0x0c, // v128.const ...
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1a, 0x0b, // 16 bytes; drop; end
    ];

    #[test]
    fn the_features_a_module_uses_are_the_ones_it_cannot_validate_without() {
        assert_eq!(used(SIGN_EXTENDING), Ok(vec!["sign extension"]));
    }

    #[test]
    fn a_feature_no_supported_browser_is_promised_fails_the_check() {
        let error = used(SIMD).unwrap_err();
        assert!(error.starts_with("the module uses a feature"), "{error}");
    }

    #[test]
    fn the_browser_line_must_name_exactly_what_the_module_uses() {
        let dir = std::env::temp_dir().join(format!("baton-features-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let wasm = dir.join("m.wasm");
        let readme = dir.join("README.md");
        std::fs::write(&wasm, SIGN_EXTENDING).unwrap();
        std::fs::write(
            &readme,
            "# x\n\nBaton runs in every browser with\nsign extension.\n",
        )
        .unwrap();
        let exact = check(&wasm, &readme);
        std::fs::write(
            &readme,
            "Baton runs in every browser with sign extension and bulk memory.\n",
        )
        .unwrap();
        let more = check(&wasm, &readme);
        std::fs::write(&readme, "Baton runs in every browser.\n").unwrap();
        let fewer = check(&wasm, &readme);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(exact.is_ok(), "{exact:?}");
        assert_eq!(
            more,
            Err(
                "the README's browser line names bulk memory, and the module does not use it"
                    .into()
            )
        );
        assert_eq!(
            fewer,
            Err(
                "the README's browser line does not name sign extension, and the module uses it"
                    .into()
            )
        );
    }
}
