//! The whole decision table as JSON, for other tools: `{"generated_by", "machine",
//! "machine_file", "generated_utc", "notes", "collectives": [{"collective", "comms": [{"ranks_min",
//! "ranks_max", "sizes": [{"size_min", "size_max", "decision": {"algorithm", "params"}}]}]}]}`
//! (`null` upper bounds mean "and above").

use crate::{DecisionTable, ExportError, Output, Provenance};
use serde::Serialize;

#[derive(Serialize)]
struct Document<'a> {
    generated_by: &'a str,
    machine: &'a str,
    machine_file: &'a str,
    generated_utc: &'a str,
    notes: &'a [String],
    collectives: &'a [crate::CollectiveTable],
}

/// The decision table as pretty JSON (serde; struct fields in declaration order, parameters in
/// name order).
pub fn write(table: &DecisionTable, prov: &Provenance) -> Result<Output, ExportError> {
    let doc = Document {
        generated_by: &prov.tool,
        machine: &table.machine,
        machine_file: &table.machine_file,
        generated_utc: &prov.generated_utc,
        notes: &table.notes,
        collectives: &table.collectives,
    };
    let mut text = serde_json::to_string_pretty(&doc).map_err(|e| ExportError::Overflow {
        target: "json",
        what: e.to_string(),
    })?;
    text.push('\n');
    Ok(Output {
        text,
        warnings: Vec::new(),
    })
}
