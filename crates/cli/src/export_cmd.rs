//! `modelopt export TARGET`: tuning files for real MPI libraries from a model (issue 10).
//!
//! Self-contained: its flags, their checks, the grid fill and the writing. The library work is
//! in `modelopt-export`; this module only turns flags into a grid and a target and writes the
//! file (or stdout with `--out -`). Warnings (parameters a target cannot set per rule, MPICH
//! defaults filled in) go to stderr as well as into the file where the format allows comments.

use crate::args::{parse_range, MachineFlag, SearchFlags};
use crate::explore::parse_size_range;
use crate::job::load_machine;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use modelopt_export::{fill, mpich::MpichVersion, utc_rfc3339, Grid, Provenance, Target};
use modelopt_model::Collective;
use std::path::PathBuf;

/// Export targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// Open MPI coll/tuned classic dynamic rules (Open MPI 4.x and 5.x).
    OmpiRules,
    /// Open MPI rules with `rule-file-version-2` (Open MPI >= 5.0.7).
    OmpiRulesV2,
    /// Open MPI 6 coll/tuned JSON rules.
    OmpiJson,
    /// MPICH JSON collective selection (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE).
    MpichJson,
    /// UCC UCC_TL_UCP_TUNE string.
    UccTune,
    /// The whole decision table as JSON, for other tools.
    Json,
}

/// MPICH release lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MpichArg {
    /// MPICH 4.0.x (Debian bookworm).
    #[value(name = "4.0")]
    V4_0,
    /// MPICH 4.1 and later.
    #[value(name = "4.1")]
    V4_1,
}

/// Flags of `modelopt export`.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// What to write.
    #[arg(value_enum)]
    pub target: TargetArg,
    #[command(flatten)]
    pub machine: MachineFlag,
    /// Communicator sizes: A..=B (the grid is A, the powers of two between, and B).
    #[arg(long, default_value = "2..=64", value_parser = parse_range, allow_negative_numbers = true)]
    pub ranks: (u32, u32),
    /// Message sizes: A..=B with K/KiB/M/MiB/G/GiB suffixes (the grid is 0 and the powers of two
    /// in the range).
    #[arg(long, default_value = "0..=1MiB", value_parser = parse_size_range, allow_negative_numbers = true)]
    pub sizes: (u64, u64),
    /// Collectives, comma-separated (default: bcast,barrier,reduce,allreduce,allgather, those the
    /// machine models).
    #[arg(long, value_delimiter = ',')]
    pub collectives: Vec<Collective>,
    /// MPICH release line for mpich-json.
    #[arg(long, value_enum, default_value = "4.0")]
    pub mpich_version: MpichArg,
    #[command(flatten)]
    pub search: SearchFlags,
    /// Output file, or - for stdout (files are written as every `--out` is: see `modelopt
    /// bcast --help`).
    #[arg(long, default_value = "-")]
    pub out: PathBuf,
    /// Generation time in seconds since the Unix epoch (default: SOURCE_DATE_EPOCH, else now).
    #[arg(long)]
    pub time: Option<u64>,
}

fn now(args: &ExportArgs) -> anyhow::Result<u64> {
    if let Some(t) = args.time {
        return Ok(t);
    }
    if let Ok(v) = std::env::var("SOURCE_DATE_EPOCH") {
        return v
            .trim()
            .parse()
            .with_context(|| format!("SOURCE_DATE_EPOCH `{v}` is not a number of seconds"));
    }
    Ok(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0))
}

/// Run `modelopt export`: returns the file text for stdout (`--out -`) or a one-line summary.
pub fn run(args: &ExportArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine.machine)?;
    crate::output::Outputs::check(&args.out)?;
    let grid = Grid::powers_of_two(args.ranks, args.sizes)?;
    let target = match args.target {
        TargetArg::OmpiRules => Target::OmpiRules,
        TargetArg::OmpiRulesV2 => Target::OmpiRulesV2,
        TargetArg::OmpiJson => Target::OmpiJson,
        TargetArg::MpichJson => Target::MpichJson(match args.mpich_version {
            MpichArg::V4_0 => MpichVersion::V4_0,
            MpichArg::V4_1 => MpichVersion::V4_1,
        }),
        TargetArg::UccTune => Target::UccTune,
        TargetArg::Json => Target::Json,
    };
    let modelled = machine.collectives();
    let collectives: Vec<Collective> = if args.collectives.is_empty() {
        [
            Collective::Bcast,
            Collective::Barrier,
            Collective::Reduce,
            Collective::Allreduce,
            Collective::Allgather,
        ]
        .into_iter()
        .filter(|c| modelled.contains(c))
        .collect()
    } else {
        args.collectives.clone()
    };
    if collectives.is_empty() {
        bail!(
            "{} models none of bcast, barrier, reduce, allreduce, allgather (pass --collectives)",
            machine.name
        );
    }
    let options = args.search.options(1, None);
    let accept = |c: Collective, d: &modelopt_export::Decision| target.accepts(c, d);
    let table = fill(&machine, &grid, &collectives, &options, &accept)?;
    let tool = format!(
        "modelopt {} export {} --machine {} --ranks {}..={} --sizes {}..={}",
        env!("CARGO_PKG_VERSION"),
        args.target
            .to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string()),
        args.machine.machine,
        args.ranks.0,
        args.ranks.1,
        args.sizes.0,
        args.sizes.1
    );
    let prov = Provenance::new(&tool, &table, &utc_rfc3339(now(args)?));
    let out = target.write(&table, &prov)?;
    for note in &table.notes {
        eprintln!("modelopt: note: {note}");
    }
    for w in &out.warnings {
        eprintln!("modelopt: warning: {w}");
    }
    if args.out.as_os_str() == "-" {
        return Ok(out.text);
    }
    crate::output::write_file(&args.out, out.text)?;
    Ok(format!("wrote {}\n", args.out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, clap::Parser)]
    struct TestCli {
        #[command(flatten)]
        export: ExportArgs,
    }

    /// The flags as a user types them, parsed by clap.
    fn args(target: &str, out: &str) -> ExportArgs {
        use clap::Parser;
        let line = [
            "export",
            target,
            "-m",
            "xeon-phi",
            "--ranks",
            "2..=4",
            "--sizes",
            "0..=2",
            "--collectives",
            "bcast",
            "--time",
            "0",
            "--out",
            out,
        ];
        TestCli::parse_from(line).export
    }

    #[test]
    fn size_ranges_take_suffixes() {
        assert_eq!(parse_size_range("0..=64MiB").unwrap(), (0, 64 << 20));
        assert_eq!(parse_size_range("64MiB").unwrap(), (64 << 20, 64 << 20));
        assert!(parse_size_range("64MiB..=1KiB").is_err());
    }

    #[test]
    fn json_export_is_deterministic_and_stamped() {
        let a = run(&args("json", "-")).unwrap();
        let b = run(&args("json", "-")).unwrap();
        assert_eq!(a, b);
        assert!(a.contains("\"generated_utc\": \"1970-01-01T00:00:00Z\""));
        assert!(a.contains("\"machine_file\": \"bundled:xeon-phi\""));
    }

    #[test]
    fn library_target_refuses_algorithms_it_cannot_express() {
        // xeon-phi's bcast algorithms are its own (trees of cache lines), not MPI's.
        let err = run(&args("ompi-rules", "-")).unwrap_err().to_string();
        assert!(err.contains("no ranked algorithm is expressible"), "{err}");
    }

    #[test]
    fn writes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.json");
        let msg = run(&args("json", path.to_str().unwrap())).unwrap();
        assert!(msg.starts_with("wrote "));
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .contains("\"collective\": \"bcast\""));
    }
}
