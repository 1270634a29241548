//! Short names for what the module and its glue call each other.
//!
//! wasm-bindgen names each function the glue hands the module after what
//! it wraps and a hash (`__wbg_ownerDocument_adefd47fd596fe80`), from a
//! module named `./baton_engine_bg.js`, and each function the module hands
//! the glue after the Rust it exports (`engine_open`,
//! `wasm_bindgen__convert__closures_____invoke__h9ffcb03254bd5cd3`). Each
//! name stands in the module and again in the glue, and the hashes' hex
//! digits are the one part no compressor shrinks: about 4.7 KiB of brotli
//! over the two files. Here both sides are given the same short names
//! (`a`, `b`, … `aa`), the glue's module `a`. The snippets' imports, which
//! name what a snippet exports, keep theirs, and so does `memory`, which
//! `init()` documents.

use std::collections::BTreeMap;

use wasm_encoder::reencode::{Reencode, RoundtripReencoder};

/// The module wasm-bindgen's glue answers as.
const GLUE: &str = "./baton_engine_bg.js";
/// What the glue's module is named instead.
const SHORT_GLUE: &str = "a";
/// The export `init()`'s result documents (`InitOutput.memory`).
const KEPT_EXPORT: &str = "memory";

/// The module with its glue's imports and its exports renamed, and each
/// old name with its new.
pub(crate) struct Shortened {
    pub(crate) wasm: Vec<u8>,
    pub(crate) imports: BTreeMap<String, String>,
    pub(crate) exports: BTreeMap<String, String>,
}

/// The `index`-th short name: `a` … `z`, `A` … `Z`, `aa`, `ab`, …
fn short_name(mut index: usize) -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut name = Vec::new();
    loop {
        name.push(LETTERS[index % LETTERS.len()]);
        index /= LETTERS.len();
        if index == 0 {
            break;
        }
        index -= 1;
    }
    name.reverse();
    String::from_utf8(name).expect("ASCII letters")
}

/// `old` under the next short name of `renamed`; a name seen twice is an
/// error.
fn rename(renamed: &mut BTreeMap<String, String>, old: &str) -> Result<String, String> {
    let short = short_name(renamed.len());
    match renamed.insert(old.to_owned(), short.clone()) {
        None => Ok(short),
        Some(_) => Err(format!("`{old}` stands twice in the module")),
    }
}

/// Renames every import from the glue's module and every export but
/// `memory` in `wasm`; every other section is copied byte for byte.
pub(crate) fn shorten(wasm: &[u8]) -> Result<Shortened, String> {
    let text = |error: wasmparser::BinaryReaderError| error.to_string();
    let mut module = wasm_encoder::Module::new();
    let (mut imports, mut exports) = (BTreeMap::new(), BTreeMap::new());
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        match payload.map_err(text)? {
            wasmparser::Payload::ImportSection(reader) => {
                let mut section = wasm_encoder::ImportSection::new();
                for import in reader.into_imports() {
                    let import = import.map_err(text)?;
                    let ty = RoundtripReencoder
                        .entity_type(import.ty)
                        .map_err(|error| error.to_string())?;
                    if import.module == GLUE {
                        section.import(SHORT_GLUE, &rename(&mut imports, import.name)?, ty);
                    } else {
                        section.import(import.module, import.name, ty);
                    }
                }
                module.section(&section);
            }
            wasmparser::Payload::ExportSection(reader) => {
                let mut section = wasm_encoder::ExportSection::new();
                for export in reader {
                    let export = export.map_err(text)?;
                    let kind = RoundtripReencoder
                        .export_kind(export.kind)
                        .map_err(|error| error.to_string())?;
                    let name = match export.name {
                        KEPT_EXPORT => KEPT_EXPORT.to_owned(),
                        other => rename(&mut exports, other)?,
                    };
                    section.export(&name, kind, export.index);
                }
                module.section(&section);
            }
            payload => {
                if let Some((id, range)) = payload.as_section() {
                    module.section(&wasm_encoder::RawSection {
                        id,
                        data: &wasm[range],
                    });
                }
            }
        }
    }
    if imports.is_empty() || exports.is_empty() {
        return Err(format!(
            "the module imports nothing from `{GLUE}` or exports nothing"
        ));
    }
    Ok(Shortened {
        wasm: module.finish(),
        imports,
        exports,
    })
}

/// Every identifier-like word of `text`, with where it starts.
fn identifiers(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut start = None;
    text.char_indices()
        .chain(std::iter::once((text.len(), ' ')))
        .filter_map(move |(at, c)| match (word(c), start) {
            (true, None) => {
                start = Some(at);
                None
            }
            (false, Some(from)) => {
                start = None;
                Some((from, &text[from..at]))
            }
            _ => None,
        })
}

/// `text` with each word that `renamed` names, and that `keep` accepts
/// (given the text before it and after it), replaced; the count of each
/// old name replaced.
fn replace_words(
    text: &str,
    renamed: &BTreeMap<String, String>,
    keep: impl Fn(&str, &str) -> bool,
) -> (String, BTreeMap<String, usize>) {
    let mut out = String::with_capacity(text.len());
    let mut counts = BTreeMap::new();
    let mut copied = 0;
    for (at, word) in identifiers(text) {
        let Some(new) = renamed.get(word) else {
            continue;
        };
        if !keep(&text[..at], &text[at + word.len()..]) {
            continue;
        }
        out.push_str(&text[copied..at]);
        out.push_str(new);
        copied = at + word.len();
        *counts.entry(word.to_owned()).or_default() += 1;
    }
    out.push_str(&text[copied..]);
    (out, counts)
}

/// `glue` (wasm-bindgen's JS, before it is minified) as [`shorten`] renamed
/// the module: the import object's keys, its module's key, and every
/// `wasm.<export>`. Each import must stand exactly once, as a key, and
/// nowhere else, the glue's module must be named once, and the exports
/// reached as `wasm.<export>`: anything else is a glue this does not know,
/// and an error. (The two exports the glue does not use,
/// `__abort_handler` and `__instance_terminated`, are renamed all the same.)
pub(crate) fn rename_in_glue(glue: &str, shortened: &Shortened) -> Result<String, String> {
    let module_key = format!("\"{GLUE}\":");
    if glue.matches(&module_key).count() != 1 {
        return Err(format!("the glue does not name `{GLUE}` once"));
    }
    let glue = glue.replacen(&module_key, &format!("{SHORT_GLUE}:"), 1);
    // A key: a word on its own before a colon, as the import object has it.
    let (glue, keys) = replace_words(&glue, &shortened.imports, |before, after| {
        before.ends_with(char::is_whitespace) && after.starts_with(':')
    });
    let left: std::collections::BTreeSet<&str> = identifiers(&glue).map(|(_, word)| word).collect();
    for old in shortened.imports.keys() {
        if keys.get(old) != Some(&1) || left.contains(old.as_str()) {
            return Err(format!(
                "the glue's `{old}` is not one key of its import object"
            ));
        }
    }
    // A JS function may share an export's name (`approvalKey`): only what
    // is reached through `wasm.` is the export.
    let (glue, reached) = replace_words(&glue, &shortened.exports, |before, _| {
        before.ends_with("wasm.")
    });
    if reached.is_empty() {
        return Err("the glue reaches no export as `wasm.<export>`".into());
    }
    Ok(glue)
}

/// A declaration file of the glue or the module (`baton_engine.d.ts`,
/// `baton_engine_bg.wasm.d.ts`) with the exports renamed as the module's:
/// each where it is declared (`readonly <export>:`, `const <export>:`).
pub(crate) fn rename_in_types(types: &str, shortened: &Shortened) -> String {
    replace_words(types, &shortened.exports, |before, after| {
        (before.ends_with("readonly ") || before.ends_with("const ")) && after.starts_with(':')
    })
    .0
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "__wbg_now_043d245551b22f9c";
    const PUSH: &str = "__wbg_push_c9f4893fc209f768";

    /// A module importing two functions from the glue and one from a
    /// snippet, exporting its memory and a function of its own.
    fn module() -> Vec<u8> {
        use wasm_encoder::{EntityType, ExportKind};
        let mut module = wasm_encoder::Module::new();
        let mut types = wasm_encoder::TypeSection::new();
        types.ty().function([], []);
        module.section(&types);
        let mut imports = wasm_encoder::ImportSection::new();
        imports.import(GLUE, NOW, EntityType::Function(0));
        imports.import(
            "./snippets/x/page_apis.js",
            "holdLock",
            EntityType::Function(0),
        );
        imports.import(GLUE, PUSH, EntityType::Function(0));
        module.section(&imports);
        let mut functions = wasm_encoder::FunctionSection::new();
        functions.function(0);
        module.section(&functions);
        let mut memories = wasm_encoder::MemorySection::new();
        memories.memory(wasm_encoder::MemoryType {
            minimum: 1,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        module.section(&memories);
        let mut exports = wasm_encoder::ExportSection::new();
        exports.export("memory", ExportKind::Memory, 0);
        exports.export("engine_open", ExportKind::Func, 3);
        module.section(&exports);
        let mut code = wasm_encoder::CodeSection::new();
        let mut body = wasm_encoder::Function::new([]);
        body.instructions().call(0).call(2).end();
        code.function(&body);
        module.section(&code);
        module.finish()
    }

    /// The module's imports and exports, as `(module, name)` and names.
    fn names_of(wasm: &[u8]) -> (Vec<(String, String)>, Vec<String>) {
        let (mut imports, mut exports) = (Vec::new(), Vec::new());
        for payload in wasmparser::Parser::new(0).parse_all(wasm) {
            match payload.unwrap() {
                wasmparser::Payload::ImportSection(reader) => {
                    for import in reader.into_imports() {
                        let import = import.unwrap();
                        imports.push((import.module.to_owned(), import.name.to_owned()));
                    }
                }
                wasmparser::Payload::ExportSection(reader) => {
                    exports.extend(reader.into_iter().map(|e| e.unwrap().name.to_owned()));
                }
                _ => {}
            }
        }
        (imports, exports)
    }

    const GLUE_JS: &str = "import * as import1 from \"./snippets/x/page_apis.js\"\n\
        function __wbg_get_imports() {\n    const import0 = {\n        \
        __wbg_now_043d245551b22f9c: function(arg0) { return arg0.now(); },\n        \
        __wbg_push_c9f4893fc209f768: function(a, b) { return a.push(b); },\n    };\n    \
        return { \"./baton_engine_bg.js\": import0, \"./snippets/x/page_apis.js\": import1 };\n}\n\
        export function open(options) { return wasm.engine_open(options); }\n\
        function buffer() { return wasm.memory.buffer; }\n";

    #[test]
    fn the_glue_s_imports_and_the_exports_get_short_names_and_the_rest_keep_theirs() {
        let shortened = shorten(&module()).unwrap();
        let (imports, exports) = names_of(&shortened.wasm);
        let pair = |module: &str, name: &str| (module.to_owned(), name.to_owned());
        assert_eq!(
            imports,
            [
                pair("a", "a"),
                pair("./snippets/x/page_apis.js", "holdLock"),
                pair("a", "b")
            ]
        );
        assert_eq!(exports, ["memory", "a"]);
        // What the module does is untouched: it still validates.
        wasmparser::Validator::new()
            .validate_all(&shortened.wasm)
            .unwrap();
        assert!(shortened.wasm.len() < module().len() - (NOW.len() + PUSH.len()));
        assert_eq!(shortened.imports[PUSH], "b");
        assert_eq!(shortened.exports["engine_open"], "a");
    }

    #[test]
    fn short_names_run_through_the_letters_then_grow() {
        let names: Vec<String> = [0, 25, 26, 51, 52, 53, 52 + 52 * 52].map(short_name).into();
        assert_eq!(names, ["a", "z", "A", "Z", "aa", "ab", "aaa"]);
        let all: std::collections::BTreeSet<String> = (0..3000).map(short_name).collect();
        assert_eq!(all.len(), 3000, "no two indices share a name");
    }

    #[test]
    fn the_glue_is_renamed_as_the_module_was() {
        let out = rename_in_glue(GLUE_JS, &shorten(&module()).unwrap()).unwrap();
        assert!(out.contains("        a: function(arg0)"), "{out}");
        assert!(out.contains("        b: function(a, b)"), "{out}");
        assert!(
            out.contains("{ a: import0, \"./snippets/x/page_apis.js\": import1 }"),
            "{out}"
        );
        assert!(out.contains("return wasm.a(options)"), "{out}");
        assert!(out.contains("wasm.memory.buffer"), "{out}");
        assert!(
            !out.contains(NOW) && !out.contains(PUSH) && !out.contains("engine_open"),
            "{out}"
        );
    }

    #[test]
    fn a_glue_it_does_not_know_is_refused() {
        let shortened = shorten(&module()).unwrap();
        let cases = [
            // An import missing from the import object, or named again.
            GLUE_JS.replace(
                "        __wbg_now_043d245551b22f9c: function",
                "        now: function",
            ),
            format!("{GLUE_JS}h({PUSH});\n"),
            // The glue's module not named.
            GLUE_JS.replace("\"./baton_engine_bg.js\"", "\"./other.js\""),
            // The exports reached other than through `wasm.`.
            GLUE_JS.replace("wasm.", "exports."),
        ];
        for glue in cases {
            assert!(rename_in_glue(&glue, &shortened).is_err(), "{glue}");
        }
    }

    #[test]
    fn the_declarations_follow_the_exports() {
        let shortened = shorten(&module()).unwrap();
        let types = "export const memory: WebAssembly.Memory;\n\
                     export const engine_open: (a: any) => any;\n\
                     export interface InitOutput {\n  readonly memory: WebAssembly.Memory;\n  \
                     readonly engine_open: (a: any) => any;\n}\n\
                     /** Opens an engine (engine_open). */\n";
        let out = rename_in_types(types, &shortened);
        assert!(out.contains("export const a: (a: any) => any;"), "{out}");
        assert!(out.contains("readonly a: (a: any) => any;"), "{out}");
        assert!(
            out.contains("readonly memory: WebAssembly.Memory;"),
            "{out}"
        );
        assert!(
            out.contains("(engine_open)"),
            "prose is left as it is: {out}"
        );
    }
}
