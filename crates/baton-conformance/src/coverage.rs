//! The coverage table: which fixtures prove each requirement, and for
//! those the kit cannot observe, which other vehicle does and why.

use std::collections::BTreeMap;

use crate::fixture::Fixture;

/// Requirements a custody or wire observer cannot see, with the vehicle
/// that proves them instead and why.
pub const ELSEWHERE: &[(&str, &str)] = &[
    ("AG-22", "agent-check: whether a capability is a cognitive operation is a property of the manifest's text"),
    ("AG-34", "agent-check: code outside the engine passing references on is a property of the app's source"),
    ("AG-36", "browser tests: one polite live region is a property of the page's DOM"),
    ("AG-38", "browser tests and journeys: focus is a property of the page"),
    ("AG-40", "browser tests: aria-busy is a property of the participant's element"),
    ("AG-42", "journeys: keyboard reachability is a property of the page"),
    ("AG-43", "journeys: reduced motion is a property of the rendered surface"),
    ("AG-44", "journeys: colour is a property of the rendered surface"),
    ("AG-49", "browser tests: the same engine driven through baton/1 and through the AG-UI adapter against the real peer"),
    ("AG-50", "package tests: a transport is a property of the JS engine; the core has none"),
];

/// Requirement → the fixtures that prove it, for AG-1 … AG-50.
pub fn table(fixtures: &[Fixture]) -> BTreeMap<u32, Vec<String>> {
    let mut table: BTreeMap<u32, Vec<String>> = (1..=50).map(|n| (n, Vec::new())).collect();
    for fixture in fixtures {
        for requirement in &fixture.proves {
            if let Some(n) = requirement.strip_prefix("AG-").and_then(|n| n.parse().ok()) {
                table.entry(n).or_default().push(fixture.id.clone());
            }
        }
    }
    table
}

/// The table as markdown: requirement, fixtures, vehicle.
pub fn markdown(fixtures: &[Fixture]) -> String {
    let mut out = String::from("| Requirement | Fixtures | Vehicle |\n|---|---|---|\n");
    let table = table(fixtures);
    for (n, ids) in &table {
        let requirement = format!("AG-{n}");
        let elsewhere = ELSEWHERE.iter().find(|(ag, _)| *ag == requirement);
        let (listed, vehicle) = match (ids.is_empty(), elsewhere) {
            (false, _) => (ids.join(", "), "fixture kit (native and JS)".to_owned()),
            (true, Some((_, why))) => ("—".to_owned(), (*why).to_owned()),
            (true, None) => ("—".to_owned(), "not yet covered".to_owned()),
        };
        out.push_str(&format!("| {requirement} | {listed} | {vehicle} |\n"));
    }
    let covered = table.values().filter(|ids| !ids.is_empty()).count();
    out.push_str(&format!("\n{covered} of 50 requirements have fixtures.\n"));
    out
}
