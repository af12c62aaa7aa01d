//! The `modelopt` command line.
//!
//! Commands are thin: they parse flags ([`args`]), load a machine, call the optimizer and render
//! its answer. User errors print one line on stderr and exit with status 2.

mod args;
mod calibrate_cmd;
mod explore;
mod export_cmd;
mod graph_cmd;
mod job;
mod machines_cmd;
mod output;
mod paper;
mod run_cmd;
mod tables;
mod tune_cmd;
mod validate_cmd;

use args::{Cli, Command};
use clap::Parser;
use modelopt_model::Collective;
use std::io::Write;
use std::process::ExitCode;

fn run(cli: &Cli) -> anyhow::Result<String> {
    match &cli.command {
        Command::Bcast(a) => tune_cmd::run(Collective::Bcast, a),
        Command::Barrier(a) => tune_cmd::run(Collective::Barrier, a),
        Command::Reduce(a) => tune_cmd::run(Collective::Reduce, a),
        Command::Allreduce(a) => tune_cmd::run(Collective::Allreduce, a),
        Command::Allgather(a) => tune_cmd::run(Collective::Allgather, a),
        Command::Gather(a) => tune_cmd::run(Collective::Gather, a),
        Command::Shift(a) => tune_cmd::run(Collective::Shift, a),
        Command::Tables(a) => tables::run(a),
        Command::Machines(a) => machines_cmd::run(a),
        Command::Explore(c) => explore::run(c),
        Command::Graph(a) => graph_cmd::render(a),
        Command::Export(a) => export_cmd::run(a),
        Command::Run(a) => run_cmd::run(a),
        Command::Validate(a) => validate_cmd::run(a),
        Command::Calibrate(a) => calibrate_cmd::run(a),
    }
}

/// Parse the command line; usage errors become one line on stderr and exit status 2.
fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            Err(ExitCode::SUCCESS)
        }
        Err(e) => {
            // clap renders a paragraph, a blank line, then usage hints: keep the paragraph.
            let rendered = e.render().to_string();
            let paragraph: Vec<&str> = rendered
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            eprintln!("modelopt: {} (see modelopt --help)", paragraph.join(" "));
            Err(ExitCode::from(2))
        }
    }
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match run(&cli) {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => ExitCode::SUCCESS,
                // A closed pipe (`modelopt ... | head`) is not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("modelopt: error: cannot write output: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(e) => {
            let message = format!("{e:#}").replace('\n', " ");
            eprintln!("modelopt: error: {message}");
            ExitCode::from(2)
        }
    }
}
