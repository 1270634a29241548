//! `cargo xtask pkg`: the npm package `baton-engine`, built into `pkg/`.

use super::*;

/// The npm project whose `binaryen` supplies `wasm-opt` (Debian's binaryen
/// corrupts wasm-bindgen output).
pub(crate) const PKG_TESTS: &str = "tests/pkg";

/// Features the Rust wasm target emits by default, which wasm-opt must
/// accept as they are.
pub(crate) const WASM_FEATURES: [&str; 7] = [
    "--enable-bulk-memory",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-sign-ext",
    "--enable-multivalue",
    // Some dependencies carry SIMD paths for wasm (every current browser
    // has SIMD).
    "--enable-simd",
];

/// Functions `wasm-opt` must leave whole though each has one caller: the
/// rare branches of the AG-UI stream's per-delta path, and the loop over a
/// network read's slices. Inlined, they made the functions the browser
/// optimises while a stream runs 7 and 24 KB, and their optimised code came
/// 20–60 ms into the stream (the manual, "Performance").
const KEPT_WHOLE: [&str; 3] = [
    "--no-inline=baton_agui::reading::Reading::start*",
    "--no-inline=baton_agui::reading::Reading::general*",
    "--no-inline=baton_wasm::transport::agui::decode*",
];

/// Every [`KEPT_WHOLE`] pattern names a function of `wasm` (read from its
/// name section, before `wasm-opt` strips it): a function renamed would
/// otherwise be inlined again without a word.
fn kept_whole_named(wasm: &[u8]) -> Result<(), String> {
    let mut names = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        let payload = payload.map_err(|error| error.to_string())?;
        let wasmparser::Payload::CustomSection(section) = payload else {
            continue;
        };
        let wasmparser::KnownCustom::Name(reader) = section.as_known() else {
            continue;
        };
        for subsection in reader {
            if let Ok(wasmparser::Name::Function(map)) = subsection {
                names.extend(
                    map.into_iter()
                        .filter_map(Result::ok)
                        .map(|naming| naming.name.to_owned()),
                );
            }
        }
    }
    let missing: Vec<&str> = KEPT_WHOLE
        .iter()
        .map(|flag| flag.trim_start_matches("--no-inline="))
        .filter(|pattern| {
            let prefix = pattern.trim_end_matches('*');
            !names.iter().any(|name| name.starts_with(prefix))
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "no function of the module is named {}: a function kept whole was renamed (KEPT_WHOLE in crates/xtask/src/pkg.rs)",
            missing.join(", ")
        ))
    }
}

/// Builds the release package: the cdylib with the `wasm-release` profile
/// (size-optimised, real LTO), wasm-bindgen's web target with weak refs into
/// `pkg/`, then binaryen's `wasm-opt -Oz` and esbuild's minifier on the
/// generated glue. Returns a table of sizes.
pub(crate) fn pkg() -> Result<String, String> {
    ensure_wasm_target()?;
    ensure_wasm_bindgen()?;
    ensure_npm(PKG_TESTS, "binaryen")?;
    ensure_npm(PKG_TESTS, "esbuild")?;
    let mut build = cargo();
    build.args([
        "build",
        "-p",
        "baton-wasm",
        "--target",
        WASM_TARGET,
        "--profile",
        "wasm-release",
    ]);
    run(build)?;
    let built = target_dir()?
        .join(WASM_TARGET)
        .join("wasm-release")
        .join("baton_wasm.wasm");
    let out = root().join("pkg");
    let mut bindgen = Command::new("wasm-bindgen");
    bindgen.arg(&built).args(["--out-dir"]).arg(&out).args([
        "--out-name",
        "baton_engine",
        "--target",
        "web",
        "--weak-refs",
    ]);
    run(bindgen)?;
    let wasm = out.join("baton_engine_bg.wasm");
    let unoptimised = file_size(&wasm)?;
    kept_whole_named(&std::fs::read(&wasm).map_err(|error| error.to_string())?)?;
    let mut optimise = Command::new(root().join(PKG_TESTS).join("node_modules/.bin/wasm-opt"));
    optimise
        .arg(&wasm)
        .arg("-o")
        .arg(&wasm)
        .args(KEPT_WHOLE)
        .args(["-Oz", "--strip-debug", "--strip-producers"])
        .args(WASM_FEATURES);
    run(optimise)?;
    let glue = out.join("baton_engine.js");
    // What the module and its glue call each other, under short names on
    // both sides, and in the declarations of each (`short_names.rs`).
    let read =
        |path: &Path| std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()));
    let write = |path: &Path, text: &[u8]| {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let shortened = short_names::shorten(
        &std::fs::read(&wasm).map_err(|e| format!("{}: {e}", wasm.display()))?,
    )?;
    write(
        &glue,
        short_names::rename_in_glue(&read(&glue)?, &shortened)?.as_bytes(),
    )?;
    for types in ["baton_engine.d.ts", "baton_engine_bg.wasm.d.ts"].map(|name| out.join(name)) {
        write(
            &types,
            short_names::rename_in_types(&read(&types)?, &shortened).as_bytes(),
        )?;
    }
    write(&wasm, &shortened.wasm)?;
    // The generated glue, minified where it stands (exports and
    // `new URL(…, import.meta.url)` kept, so bundlers still find the wasm):
    // about 6 KiB of brotli less for every app. Its inline snippets are
    // bundled into it, so a page loads the engine's JavaScript in two
    // requests one after the other, not three (the manual, "Size").
    let esbuild = root().join(PKG_TESTS).join("node_modules/.bin/esbuild");
    let mut minify = Command::new(&esbuild);
    minify
        .arg(&glue)
        .args(["--bundle", "--minify", "--format=esm", "--allow-overwrite"])
        .arg(format!("--outfile={}", glue.display()));
    run(minify)?;
    // The entry point, `baton.js`: the hand-written `entry.js` and the glue
    // in one module, so a page loads the engine's JavaScript in one request.
    // Its first line asks V8 to compile every function of it at once, off
    // the main thread while it streams in (`allFunctionsCalledOnLoad`): a
    // page calls most of them while the engine opens, and compiling them
    // lazily, one by one on the main thread, was 175 compiles there (the
    // manual, "Performance"). A bundler that rewrites the file drops the
    // hint, and nothing else.
    let mut entry = Command::new(&esbuild);
    entry
        .arg(out.join("entry.js"))
        .args(["--bundle", "--minify", "--format=esm"])
        .arg("--banner:js=//# allFunctionsCalledOnLoad")
        .arg(format!("--outfile={}", out.join("baton.js").display()));
    run(entry)?;
    let snippets = out.join("snippets");
    if snippets.exists() {
        std::fs::remove_dir_all(&snippets)
            .map_err(|e| format!("removing {}: {e}", snippets.display()))?;
    }
    let mut table = format!(
        "package built in {}\n{:<28} {:>10} {:>10} {:>10}\n",
        out.display(),
        "file",
        "raw",
        "gzip",
        "brotli"
    );
    table.push_str(&format!(
        "{:<28} {:>10}\n",
        "wasm before wasm-opt", unoptimised
    ));
    let fixtures = conformance::bundle_fixtures(&out)?;
    table.push_str(&format!("conformance fixtures bundled: {fixtures}\n"));
    for name in ["baton_engine_bg.wasm", "baton.js"] {
        let (raw, gzip, brotli) = compressed_sizes(&out.join(name))?;
        table.push_str(&format!("{name:<28} {raw:>10} {gzip:>10} {brotli:>10}\n"));
    }
    Ok(table)
}

pub(crate) fn target_dir() -> Result<PathBuf, String> {
    let mut metadata = cargo();
    metadata.args(["metadata", "--format-version", "1", "--no-deps"]);
    let parsed: serde_json::Value = serde_json::from_str(&output(metadata)?)
        .map_err(|error| format!("cargo metadata is not JSON: {error}"))?;
    parsed["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata has no target_directory".into())
}

pub(crate) fn file_size(path: &Path) -> Result<u64, String> {
    std::fs::metadata(path)
        .map(|meta| meta.len())
        .map_err(|error| format!("{}: {error}", path.display()))
}

/// Raw, gzip (level 9) and brotli (quality 11) sizes, measured with Node's
/// zlib — the compressors a CDN would use.
pub(crate) fn compressed_sizes(path: &Path) -> Result<(u64, u64, u64), String> {
    let mut node = Command::new("node");
    node.args([
        "-e",
        "const z=require('zlib'),b=require('fs').readFileSync(process.argv[1]);\
         console.log(b.length, z.gzipSync(b,{level:9}).length, \
         z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)",
    ])
    .arg(path);
    let text = output(node)?;
    let numbers: Vec<u64> = text
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    match numbers[..] {
        [raw, gzip, brotli] => Ok((raw, gzip, brotli)),
        _ => Err(format!("could not measure {}: {text}", path.display())),
    }
}

// ----- test -----------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` as unsigned LEB128, as a module's sizes and counts are written.
    fn leb128(mut n: usize) -> Vec<u8> {
        let mut bytes = Vec::new();
        loop {
            let byte = u8::try_from(n & 0x7f).unwrap();
            n >>= 7;
            if n == 0 {
                bytes.push(byte);
                return bytes;
            }
            bytes.push(byte | 0x80);
        }
    }

    /// A module holding nothing but a name section naming functions `names`.
    fn naming(names: &[String]) -> Vec<u8> {
        let mut map = leb128(names.len());
        for (index, name) in names.iter().enumerate() {
            map.extend(leb128(index));
            map.extend(leb128(name.len()));
            map.extend(name.as_bytes());
        }
        let mut body = leb128(4);
        body.extend(b"name");
        body.push(1);
        body.extend(leb128(map.len()));
        body.extend(map);
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.push(0);
        module.extend(leb128(body.len()));
        module.extend(body);
        module
    }

    fn named_as_kept() -> Vec<String> {
        KEPT_WHOLE
            .iter()
            .map(|flag| {
                flag.trim_start_matches("--no-inline=")
                    .replace('*', "::h0123")
            })
            .collect()
    }

    #[test]
    fn the_functions_kept_whole_are_found_by_name() {
        assert_eq!(kept_whole_named(&naming(&named_as_kept())), Ok(()));
    }

    #[test]
    fn a_function_kept_whole_that_was_renamed_fails_the_build() {
        let mut names = named_as_kept();
        let gone = names.remove(1);
        let error = kept_whole_named(&naming(&names)).unwrap_err();
        assert!(error.contains(gone.trim_end_matches("::h0123")), "{error}");
    }
}
