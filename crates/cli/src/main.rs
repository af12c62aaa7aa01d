//! The `modelopt` command line.
//!
//! Commands are thin: they parse flags ([`args`]), load a machine, call the optimizer and render
//! its answer. User errors print one line on stderr and exit with status 2.

mod args;
mod machines_cmd;
mod paper;
mod tables;
mod tune_cmd;

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
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
