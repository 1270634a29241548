//! The coverage table: which fixtures prove each requirement, and for
//! those the kit cannot observe, which other vehicle does and why.

use std::collections::BTreeMap;

use crate::fixture::Fixture;

/// Requirements a custody or wire observer cannot see, with the vehicle
/// that proves them instead and why.
pub const ELSEWHERE: &[(&str, &str)] = &[
    ("AG-22", "agent-check: whether a capability is a cognitive operation is a property of the manifest's text"),
    ("AG-34", "agent-check: code outside the engine passing references on is a property of the app's source"),
    ("AG-42", "journeys: keyboard reachability is a property of the page"),
    ("AG-43", "journeys: reduced motion is a property of the rendered surface"),
    ("AG-44", "journeys: colour is a property of the rendered surface"),
    ("AG-49", "browser tests: the same engine driven through baton/1 and through the AG-UI adapter against the real peer"),
];

/// Requirement → the fixtures that prove it, for AG-1 … AG-50.
pub fn table(fixtures: &[Fixture]) -> BTreeMap<u32, Vec<String>> {
    table_where(fixtures, |_| true)
}

fn table_where(
    fixtures: &[Fixture],
    keep: impl Fn(&Fixture) -> bool,
) -> BTreeMap<u32, Vec<String>> {
    let mut table: BTreeMap<u32, Vec<String>> = (1..=50).map(|n| (n, Vec::new())).collect();
    for fixture in fixtures.iter().filter(|fixture| keep(fixture)) {
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
    let everywhere = table_where(fixtures, |fixture| fixture.observer.is_none());
    for (n, ids) in &table {
        let requirement = format!("AG-{n}");
        let elsewhere = ELSEWHERE.iter().find(|(ag, _)| *ag == requirement);
        let page_only = everywhere.get(n).is_none_or(Vec::is_empty);
        let (listed, vehicle) = match (ids.is_empty(), elsewhere) {
            (false, _) if page_only => (
                ids.join(", "),
                "fixture kit, JS runner (a page observer)".to_owned(),
            ),
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
