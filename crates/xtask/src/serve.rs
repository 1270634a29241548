//! A small static file server on 127.0.0.1 for the demo (`www/`) and the
//! package it imports (`pkg/`): the same code serves `cargo xtask demo` and
//! the end-to-end tests. GET and HEAD only; nothing outside those two
//! folders is ever served, and `..` never leaves them.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// The folders of the repository the server exposes, by URL prefix.
const SERVED: [&str; 2] = ["www", "pkg"];

/// A server listening on 127.0.0.1.
pub struct Server {
    listener: TcpListener,
    root: PathBuf,
}

impl Server {
    /// Binds 127.0.0.1 on `port` (0: a free one).
    pub fn bind(root: &Path, port: u16) -> Result<Server, String> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|error| format!("cannot listen on 127.0.0.1:{port}: {error}"))?;
        Ok(Server {
            listener,
            root: root.to_owned(),
        })
    }

    /// The demo's address.
    pub fn url(&self) -> String {
        let port = self.listener.local_addr().map(|a| a.port()).unwrap_or(0);
        format!("http://127.0.0.1:{port}/www/")
    }

    /// Serves until the process ends, one thread per connection.
    pub fn serve(self) {
        for stream in self.listener.incoming().flatten() {
            let root = self.root.clone();
            std::thread::spawn(move || {
                let _ = answer(&root, stream);
            });
        }
    }

    /// Serves in the background; the server lives as long as the process.
    pub fn spawn(self) -> String {
        let url = self.url();
        std::thread::spawn(move || self.serve());
        url
    }
}

fn answer(root: &Path, mut stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // Headers are read and ignored; the body of a GET is empty.
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        return respond(&mut stream, 405, "text/plain", b"only GET and HEAD", false);
    }
    let path = target.split(['?', '#']).next().unwrap_or("/");
    if path == "/" {
        let head = "HTTP/1.1 302 Found\r\nLocation: /www/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        return stream.write_all(head.as_bytes());
    }
    match resolve(root, path) {
        Some(file) => match std::fs::read(&file) {
            Ok(body) => respond(&mut stream, 200, mime(&file), &body, method == "HEAD"),
            Err(_) => respond(&mut stream, 404, "text/plain", b"not found", false),
        },
        None => respond(&mut stream, 404, "text/plain", b"not found", false),
    }
}

/// The file a URL path names, if it is inside a served folder.
fn resolve(root: &Path, path: &str) -> Option<PathBuf> {
    let relative = Path::new(path.trim_start_matches('/'));
    let mut components = relative.components();
    let Some(Component::Normal(first)) = components.next() else {
        return None;
    };
    if !SERVED.iter().any(|served| first == *served) {
        return None;
    }
    if !components.all(|part| matches!(part, Component::Normal(_))) {
        return None;
    }
    let mut file = root.join(relative);
    if path.ends_with('/') || file.is_dir() {
        file = file.join("index.html");
    }
    file.is_file().then_some(file)
}

fn mime(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

/// The Content Security Policy of a page: scripts only from the server and
/// the page's own inline import maps (by hash), WebAssembly compilation,
/// connections to agents on 127.0.0.1, and Trusted Types required for every
/// DOM script sink with no policy allowed — so the demo, and every journey
/// through it, proves the package builds its DOM without `innerHTML` or
/// `eval`.
fn content_security_policy(html: &[u8]) -> String {
    let text = String::from_utf8_lossy(html);
    let mut hashes = String::new();
    let open = "<script type=\"importmap\">";
    for (start, _) in text.match_indices(open) {
        let body = &text[start + open.len()..];
        let Some(end) = body.find("</script>") else {
            continue;
        };
        let digest = Sha256::digest(&body.as_bytes()[..end]);
        hashes.push_str(&format!(" 'sha256-{}'", STANDARD.encode(digest)));
    }
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{hashes}; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
         connect-src 'self' http://127.0.0.1:*; \
         require-trusted-types-for 'script'; trusted-types 'none'"
    )
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    kind: &str,
    body: &[u8],
    head_only: bool,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let policy = if kind.starts_with("text/html") {
        format!(
            "Content-Security-Policy: {}\r\n",
            content_security_policy(body)
        )
    } else {
        String::new()
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\n{policy}Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_served_under_trusted_types_with_their_import_map_hashed() {
        let page = br#"<script type="importmap">{"imports": {}}</script><p>hi</p>"#;
        let policy = content_security_policy(page);
        assert!(policy.contains("require-trusted-types-for 'script'; trusted-types 'none'"));
        let digest = STANDARD.encode(Sha256::digest(br#"{"imports": {}}"#));
        assert!(policy.contains(&format!("'sha256-{digest}'")), "{policy}");
        assert!(!content_security_policy(b"<p>no map</p>").contains("sha256-"));
    }

    #[test]
    fn only_the_served_folders_and_never_above_them() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        assert!(resolve(&root, "/www/index.html").is_some());
        assert!(resolve(&root, "/www/").is_some());
        assert!(resolve(&root, "/Cargo.toml").is_none());
        assert!(resolve(&root, "/www/../Cargo.toml").is_none());
        assert!(resolve(&root, "/crates/xtask/src/serve.rs").is_none());
        assert_eq!(mime(Path::new("a.wasm")), "application/wasm");
    }
}
