//! Charts are written as real SVG and PNG files of a non-trivial size (issue 5).

use modelopt_model::{machine, Collective, Machine, Metric};
use modelopt_optimizer::sweep::{log_sizes, Row, Sweep};
use modelopt_plot::{render, write, Chart, ImageFormat, Lines, PlotError};
use std::path::Path;

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

fn rows(m: &Machine, collective: Collective, threads: Vec<u32>, sizes: Vec<u64>) -> Vec<Row> {
    let mut s = Sweep::new(vec![m], vec![collective], threads).unwrap();
    s.sizes = sizes;
    s.rows().collect()
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height)
}

#[test]
fn thread_sweep_writes_svg_and_png_files() {
    let phi = machine::load("xeon-phi").unwrap();
    let data = rows(&phi, Collective::Bcast, (2..=60).collect(), vec![0]);
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("bcast.svg");
    let png = dir.path().join("bcast.png");
    write(&data, &Chart::default(), &svg).unwrap();
    write(&data, &Chart::default(), &png).unwrap();

    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..40]);
    assert!(text.trim_end().ends_with("</svg>"));
    assert!(text.len() > 10_000, "{} bytes", text.len());
    // Axis labels with units, legend entries, the parameter chart.
    for needle in [
        "threads",
        "latency [µs]",
        "small-tree",
        "d (depth)",
        "k1",
        "min-max",
    ] {
        assert!(text.contains(needle), "missing {needle:?}");
    }

    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(PNG_MAGIC));
    assert!(bytes.len() > 20_000, "{} bytes", bytes.len());
    assert_eq!(png_size(&bytes), (1200, 900));
}

#[test]
fn size_sweep_and_comparison_render() {
    let phi = machine::load("xeon-phi").unwrap();
    let data = rows(&phi, Collective::Bcast, vec![48], log_sizes(32, 1 << 20));
    let svg = render(&data, &Chart::default(), ImageFormat::Svg).unwrap();
    let text = String::from_utf8(svg).unwrap();
    assert!(text.contains("message size [bytes, log scale]"));
    assert!(text.contains("1 MiB") && text.contains("32 B"));

    let snb = machine::load("sandy-bridge-e5-2670").unwrap();
    let mut s = Sweep::new(
        vec![&phi, &snb],
        vec![Collective::Barrier],
        (2..=64).collect(),
    )
    .unwrap();
    s.sizes = vec![0];
    let all: Vec<Row> = s.rows().collect();
    let chart = Chart {
        lines: Lines::Winners,
        width: 800,
        height: 600,
        ..Chart::default()
    };
    let png = render(&all, &chart, ImageFormat::Png).unwrap();
    assert!(png.starts_with(PNG_MAGIC));
    assert_eq!(png_size(&png), (800, 600));
    let svg = String::from_utf8(render(&all, &chart, ImageFormat::Svg).unwrap()).unwrap();
    assert!(svg.contains("xeon-phi") && svg.contains("sandy-bridge-e5-2670"));
}

#[test]
fn rendering_is_deterministic() {
    let phi = machine::load("xeon-phi").unwrap();
    let data = rows(&phi, Collective::Barrier, (2..=30).collect(), vec![0]);
    for format in [ImageFormat::Svg, ImageFormat::Png] {
        let a = render(&data, &Chart::default(), format).unwrap();
        let b = render(&data, &Chart::default(), format).unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn nothing_to_draw_is_an_error() {
    assert!(matches!(
        render(&[], &Chart::default(), ImageFormat::Svg),
        Err(PlotError::NoData(_))
    ));
    let phi = machine::load("xeon-phi").unwrap();
    let data = rows(&phi, Collective::Barrier, vec![4, 8], vec![0]);
    let throughput = Chart {
        metric: Metric::Throughput,
        ..Chart::default()
    };
    let err = render(&data, &throughput, ImageFormat::Png).unwrap_err();
    assert!(err.to_string().contains("throughput"), "{err}");
    let err = write(&data, &Chart::default(), Path::new("chart.pdf")).unwrap_err();
    assert!(matches!(err, PlotError::UnknownFormat(_)));
    let err = write(
        &data,
        &Chart::default(),
        Path::new("/no/such/dir/chart.svg"),
    )
    .unwrap_err();
    assert!(matches!(err, PlotError::Io { .. }));
}
