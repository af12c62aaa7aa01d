//! Regenerates `docs/gallery.md` and the figures in `docs/gallery/`: for every bundled machine and
//! every collective it models, latency against threads (one item, and 8 KiB where the models
//! differ), latency against message size where it matters, and one machine comparison per
//! collective.
//!
//! ```text
//! cargo run --release --example gallery -p modelopt-plot            # writes docs/
//! cargo run --release --example gallery -p modelopt-plot -- OUT_DIR # writes OUT_DIR/
//! ```

use anyhow::Context;
use modelopt_model::{machine, Collective, Machine};
use modelopt_optimizer::sweep::{log_sizes, Row, Sweep};
use modelopt_plot::{render, Chart, ImageFormat, Lines};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Thread counts of the comparison figures (each machine up to its own limit).
const COMPARE_THREADS: u32 = 64;
/// Message size of the "large message" figures: seed 000 Figure 4.6 uses 8 KB.
const LARGE: u64 = 8 << 10;

struct Figure {
    file: String,
    caption: String,
    seed: String,
}

fn main() -> anyhow::Result<()> {
    let out: PathBuf = match std::env::args_os().nth(1) {
        Some(dir) => dir.into(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs"),
    };
    let images = out.join("gallery");
    std::fs::create_dir_all(&images).with_context(|| format!("creating {}", images.display()))?;

    let machines: Vec<Machine> = machine::bundled_names()
        .into_iter()
        .map(machine::load)
        .collect::<Result<_, _>>()?;
    let mut sections: Vec<(String, Vec<Figure>)> = Vec::new();

    for m in &machines {
        let mut figures = Vec::new();
        for collective in m.collectives() {
            let threads: Vec<u32> = (2..=m.max_threads).collect();
            // Against threads, one item and 8 KiB; the second only if it shows other algorithms.
            let mut shown: Vec<Vec<String>> = Vec::new();
            for size in [0, LARGE] {
                let rows = sweep(m, collective, threads.clone(), vec![size])?;
                let algorithms = algorithms_of(&rows);
                if rows.is_empty() || shown.contains(&algorithms) {
                    continue;
                }
                shown.push(algorithms);
                let tag = if size == 0 { "one-item" } else { "8KiB" };
                let file = format!("{}-{}-{tag}.png", m.name, collective);
                draw(&rows, &Chart::default(), &images.join(&file))?;
                figures.push(Figure {
                    file,
                    caption: format!(
                        "{collective}, {}, threads 2–{}: every algorithm with its optimal parameters",
                        if size == 0 { "one item" } else { "8 KiB" },
                        m.max_threads
                    ),
                    seed: seed_reference(&m.family, collective, size),
                });
            }
            // Against message size, where the winner's latency depends on it.
            let at = m.max_threads.min(48);
            let rows = sweep(m, collective, vec![at], log_sizes(32, 1 << 20))?;
            let winners: Vec<f64> = rows
                .iter()
                .filter(|r| r.winner)
                .map(|r| r.t_min_ns)
                .collect();
            if winners.len() > 1 && winners.windows(2).any(|w| w[0] != w[1]) {
                let file = format!("{}-{}-sizes.png", m.name, collective);
                draw(&rows, &Chart::default(), &images.join(&file))?;
                figures.push(Figure {
                    file,
                    caption: format!("{collective}, {at} threads, 32 B – 1 MiB (log scale)"),
                    seed: seed_reference(&m.family, collective, u64::MAX),
                });
            }
        }
        sections.push((format!("{} ({})", m.name, m.description), figures));
    }

    // One comparison per collective, over the machines that model it.
    let mut figures = Vec::new();
    for collective in Collective::ALL {
        let with: Vec<&Machine> = machines
            .iter()
            .filter(|m| m.collectives().contains(&collective))
            .collect();
        if with.len() < 2 {
            continue;
        }
        // The size (one item or 8 KiB) at which the most machines can be compared.
        let mut best: Option<(usize, u64, Vec<Row>)> = None;
        for size in [0, LARGE] {
            let mut s = Sweep::new(
                with.clone(),
                vec![collective],
                (2..=COMPARE_THREADS).collect(),
            )?;
            s.sizes = vec![size];
            let rows: Vec<Row> = s.rows().filter(|r| r.winner).collect();
            let drawn = rows
                .iter()
                .map(|r| r.machine.as_str())
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            if drawn >= 2 && best.as_ref().is_none_or(|(n, _, _)| drawn > *n) {
                best = Some((drawn, size, rows));
            }
        }
        let Some((_, size, rows)) = best else {
            continue;
        };
        let file = format!("compare-{collective}.png");
        let chart = Chart {
            lines: Lines::Winners,
            ..Chart::default()
        };
        draw(&rows, &chart, &images.join(&file))?;
        figures.push(Figure {
            file,
            caption: format!(
                "{collective}, {}, best algorithm of each machine, threads 2–{COMPARE_THREADS} (each machine up to its own limit)",
                if size == 0 { "one item" } else { "8 KiB" }
            ),
            seed: "— (a comparison the seeds do not draw)".into(),
        });
    }
    sections.push(("Machines side by side".into(), figures));

    std::fs::write(out.join("gallery.md"), markdown(&sections))
        .with_context(|| format!("writing {}", out.join("gallery.md").display()))?;
    let count: usize = sections.iter().map(|(_, f)| f.len()).sum();
    println!("wrote {count} figures and gallery.md to {}", out.display());
    Ok(())
}

fn sweep(
    m: &Machine,
    collective: Collective,
    threads: Vec<u32>,
    sizes: Vec<u64>,
) -> anyhow::Result<Vec<Row>> {
    let mut s = Sweep::new(vec![m], vec![collective], threads)?;
    s.sizes = sizes;
    Ok(s.rows().collect())
}

fn algorithms_of(rows: &[Row]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        if !names.contains(&r.algorithm) {
            names.push(r.algorithm.clone());
        }
    }
    names
}

fn draw(rows: &[Row], chart: &Chart, path: &Path) -> anyhow::Result<()> {
    let bytes = render(rows, chart, ImageFormat::Png)?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// The seed figure or table a gallery figure corresponds to (`size`: 0 one item, `u64::MAX` a
/// size sweep). Families without an entry say so.
fn seed_reference(family: &str, collective: Collective, size: u64) -> String {
    let text = match (family, collective, size) {
        ("cache-coherent", Collective::Bcast, 0) => {
            "seed 000 Figure 4.5 (small broadcast, min-max model) and Table B.1 (optimal d, k_i)"
        }
        ("cache-coherent", Collective::Bcast, u64::MAX) => {
            "no seed figure: seed 000 models the small broadcast up to one line and the large ones from 1 B (Figure 4.6 is at 8 KB)"
        }
        ("cache-coherent", Collective::Bcast, _) => {
            "seed 000 Figure 4.6 (large broadcast, 8 KB: pipelined and flat tree)"
        }
        ("cache-coherent", Collective::Barrier, _) => {
            "seed 000 Figure 4.7 (barrier, min-max model) and Table B.2 (optimal m, r)"
        }
        ("cache-coherent", Collective::Reduce, _) => {
            "seed 000 Figure 4.8 (small reduction, min-max model) and Table B.3 (optimal d, k_i)"
        }
        ("cell", Collective::Barrier, _) => {
            "seed 002 Table 1 (barrier models) and Figure 9 (barrier predictions and measurements)"
        }
        ("cell", Collective::Bcast, _) => {
            "seed 002 Table 2 (broadcast models) and Figure 10 (predictions of the algorithms)"
        }
        ("cell", Collective::Allgather, _) => {
            "seed 002 Table 3 (all-gather models, hybrid-x-y: Figure 6) and Figure 10"
        }
        ("cell", Collective::Reduce, _) => "seed 002 Table 4 (reduce models) and Figure 10",
        ("cell", Collective::Allreduce, _) => {
            "seed 002 Table 5 (all-reduce models) and Figure 10"
        }
        ("ksr1", Collective::Bcast, _) => "seed 003 Figure 3 (broadcast) and its §5 cost model",
        ("ksr1", Collective::Shift, _) => {
            "seed 003 Figure 4 (cyclic shift costs) and its §5 cost model"
        }
        ("ksr1", Collective::Gather, _) => {
            "seed 003 Figures 5–6 (concatenate on one processor, algorithms 1 and 2)"
        }
        ("ksr1", Collective::Allgather, _) => {
            "seed 003 Figures 7–10 (concatenate on all processors, algorithms 1–3)"
        }
        ("ksr1", Collective::Reduce, _) => "seed 003 Figure 11 (reduction, sum)",
        ("ksr1", _, _) => "seed 003 §5 (the cost model of this collective)",
        ("scc", Collective::Bcast, _) => {
            "seed 004 Figure 4.4 (latency and throughput formulas) and Figure 4.5 (OC-BCAST with k = 2, 7, 47 vs. binomial tree)"
        }
        ("cell", _, _) => "seed 002 (the model of this collective)",
        ("scc", _, _) => "seed 004 chapter 4",
        ("ccnuma", Collective::Bcast, _) => {
            "seed 001 Figure 1 and Eq. (2) (one-line broadcast over every rooted tree, placed on the sockets) and Figure 3 (its performance); up to 18 threads the search is exhaustive, above it the two-socket heuristic (the exact one-socket tree, optimally placed), hence the change in the max band at 19"
        }
        _ => "—",
    };
    text.to_string()
}

fn markdown(sections: &[(String, Vec<Figure>)]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Gallery\n");
    let _ = writeln!(
        md,
        "Every figure below is drawn by `modelopt-plot` from a `modelopt_optimizer::sweep` of a bundled \
         machine, and regenerated — with this page — by one command:\n"
    );
    let _ = writeln!(
        md,
        "```sh\ncargo run --release --example gallery -p modelopt-plot\n```\n"
    );
    let _ = writeln!(
        md,
        "How to read them: the upper chart shows the predicted latency of each algorithm with its \
         optimal parameters — the line is the best-case (min) model the optimizer minimizes, the \
         shaded band reaches the worst-case (max) model, and a dot marks the best algorithm at \
         that point when several compete. The lower chart shows those optimal parameters (d and \
         k_i of a tree, m and r of a dissemination barrier, named parameters of other families), \
         the way the seeds' Appendix B tables would look as pictures. Thread counts above the \
         seed's measurements (the Xeon Phi's 60 cores) are the machine file's extrapolation. The \
         same figures come from the CLI, e.g. `modelopt sweep --machine xeon-phi --collective bcast \
         --threads 2..=240 --plot bcast.svg`.\n"
    );
    for (title, figures) in sections {
        let _ = writeln!(md, "## {title}\n");
        if figures.is_empty() {
            let _ = writeln!(md, "(no figure)\n");
        }
        for f in figures {
            let _ = writeln!(md, "### {}\n", f.caption);
            let _ = writeln!(md, "Corresponds to: {}.\n", f.seed);
            let _ = writeln!(md, "![{}](gallery/{})\n", f.caption, f.file);
        }
    }
    md
}
