//! `agent-check [--format human|json|sarif] PATH…` — exits 0 when clean, 1
//! on findings, 2 on a usage error or a file it could not read.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: agent-check [--format human|json|sarif] PATH…";

fn main() -> ExitCode {
    let mut format = "human".to_owned();
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--format" => match args.next() {
                Some(value) if ["human", "json", "sarif"].contains(&value.as_str()) => {
                    format = value
                }
                _ => {
                    eprintln!("{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--help" | "-h" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            flag if flag.starts_with("--") => {
                eprintln!("unknown option {flag}\n{USAGE}");
                return ExitCode::from(2);
            }
            path => paths.push(PathBuf::from(path)),
        }
    }
    if paths.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let (scan, findings) = agent_check::check(&paths);
    let text = match format.as_str() {
        "json" => agent_check::output::as_json(&scan, &findings).to_string(),
        "sarif" => agent_check::output::sarif(&scan, &findings).to_string(),
        _ => agent_check::output::human(&scan, &findings),
    };
    println!("{}", text.trim_end());
    if !scan.unreadable.is_empty() {
        ExitCode::from(2)
    } else if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
