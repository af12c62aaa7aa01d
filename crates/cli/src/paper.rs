//! The published Appendix B tables of seed 000, transcribed in `papers/seed000-appendix-b.csv`.
//!
//! Comparison data only: `tables --compare-paper` prices these choices under our model; the
//! optimizer never sees them.

use anyhow::Context;
use modelopt_model::Params;
use serde::Deserialize;

const APPENDIX_B: &str = include_str!("../../../papers/seed000-appendix-b.csv");

#[derive(Debug, Deserialize)]
struct Row {
    table: String,
    threads: u32,
    depth: Option<u32>,
    k1: Option<u32>,
    k2: Option<u32>,
    k3: Option<u32>,
    degree: Option<u32>,
    rounds: Option<u32>,
    note: String,
}

/// One published row.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperRow {
    /// "B.1", "B.2" or "B.3".
    pub table: String,
    /// n.
    pub threads: u32,
    /// The published parameters.
    pub params: Params,
    /// Transcription note (typos read), empty when none.
    pub note: String,
}

/// Every published row.
pub fn appendix_b() -> anyhow::Result<Vec<PaperRow>> {
    let mut reader = csv::Reader::from_reader(APPENDIX_B.as_bytes());
    let mut rows = Vec::new();
    for (i, record) in reader.deserialize::<Row>().enumerate() {
        let row = record.with_context(|| format!("papers/seed000-appendix-b.csv row {}", i + 2))?;
        let params = match (row.depth, row.degree, row.rounds) {
            (Some(depth), _, _) => Params::Tree {
                depth,
                degrees: [row.k1, row.k2, row.k3]
                    .into_iter()
                    .flatten()
                    .take(depth as usize)
                    .collect(),
            },
            (None, Some(degree), Some(rounds)) => Params::Dissemination { degree, rounds },
            _ => anyhow::bail!("papers/seed000-appendix-b.csv row {}: no parameters", i + 2),
        };
        rows.push(PaperRow {
            table: row.table,
            threads: row.threads,
            params,
            note: row.note,
        });
    }
    Ok(rows)
}

/// The published row of `table` for `threads`, if any.
pub fn lookup<'a>(rows: &'a [PaperRow], table: &str, threads: u32) -> Option<&'a PaperRow> {
    rows.iter()
        .find(|r| r.table == table && r.threads == threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcription_is_complete() {
        let rows = appendix_b().unwrap();
        for table in ["B.1", "B.2", "B.3"] {
            for n in 2..=60 {
                assert!(lookup(&rows, table, n).is_some(), "{table} row {n}");
            }
        }
        // B.1 row 4: printed with a stray k_3 = 1; read as d = 1, k = (3).
        assert_eq!(
            lookup(&rows, "B.1", 4).unwrap().params,
            Params::Tree {
                depth: 1,
                degrees: vec![3]
            }
        );
        assert_eq!(
            lookup(&rows, "B.2", 26).unwrap().params,
            Params::Dissemination {
                degree: 3,
                rounds: 3
            }
        );
    }
}
