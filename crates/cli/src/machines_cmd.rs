//! `modelopt machines`: list the bundled machines, or show one with every number's source.

use crate::args::{MachinesAction, MachinesArgs};
use crate::job::load_machine;
use modelopt_model::machine::bundled_names;
use std::fmt::Write as _;

/// Run `machines` and return its output.
pub fn run(args: &MachinesArgs) -> anyhow::Result<String> {
    let mut out = String::new();
    match &args.action {
        None => {
            let machines = bundled_names()
                .into_iter()
                .map(load_machine)
                .collect::<Result<Vec<_>, _>>()?;
            let collectives: Vec<String> = machines
                .iter()
                .map(|m| {
                    let names: Vec<String> =
                        m.collectives().iter().map(ToString::to_string).collect();
                    names.join(",")
                })
                .collect();
            let wn = machines
                .iter()
                .map(|m| m.name.len())
                .max()
                .unwrap_or(4)
                .clamp(4, crate::job::MAX_COLUMN);
            let wf = machines
                .iter()
                .map(|m| m.family.len())
                .max()
                .unwrap_or(6)
                .clamp(6, crate::job::MAX_COLUMN);
            let wc = collectives
                .iter()
                .map(String::len)
                .max()
                .unwrap_or(11)
                .clamp(11, crate::job::MAX_COLUMN);
            let _ = writeln!(
                out,
                "{:<wn$}  {:<wf$}  {:>7}  {:<wc$}  description",
                "name", "family", "threads", "collectives"
            );
            for (m, c) in machines.iter().zip(&collectives) {
                let estimated = if m.estimated_params().is_empty() {
                    ""
                } else {
                    " [has estimates]"
                };
                let _ = writeln!(
                    out,
                    "{:<wn$}  {:<wf$}  {:>7}  {:<wc$}  {}{estimated}",
                    m.name, m.family, m.max_threads, c, m.description
                );
            }
        }
        Some(MachinesAction::Show { name, raw }) => {
            let m = load_machine(name)?;
            if *raw {
                return Ok(m.text().to_string());
            }
            let _ = writeln!(
                out,
                "{} ({}), family {}, at most {} threads",
                m.name, m.origin, m.family, m.max_threads
            );
            let _ = writeln!(out, "{}\n", m.description);
            let _ = writeln!(
                out,
                "{:<34} {:>12} {:>9} {:<5} source",
                "parameter", "value", "stdev", "unit"
            );
            for p in m.params() {
                let stdev = p.stdev.map_or(String::new(), |s| format!("{s}"));
                let flag = if p.estimated { "  [ESTIMATED]" } else { "" };
                let _ = writeln!(
                    out,
                    "{:<34} {:>12} {:>9} {:<5} {}{flag}",
                    p.key, p.value, stdev, p.unit, p.source
                );
            }
            let _ = writeln!(out, "\nalgorithms:");
            for a in m.algorithms() {
                let _ = writeln!(
                    out,
                    "  {:<10} {:<24} {}",
                    a.collective().to_string(),
                    a.name(),
                    a.summary()
                );
            }
        }
    }
    Ok(out)
}
