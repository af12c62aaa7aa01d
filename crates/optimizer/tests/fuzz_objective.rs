//! Fuzz target (stable Rust, proptest) for `--objective`'s parser, `Objective::from_str`.
//!
//! The property: never a panic; either an objective whose weight is a finite number in [0, 1]
//! and which prints back to text that parses to the same objective, or an error of one line
//! (when the input has none), never longer than the input plus a fixed explanation — in
//! particular a huge weight such as `blend:1e308` is not printed with 309 digits.
//!
//! Long run: `PROPTEST_CASES=1000000 cargo test --release -p modelopt-optimizer --test
//! fuzz_objective` (docs/fuzzing.md).

use modelopt_optimizer::objective::Objective;
use proptest::prelude::*;

fn check(text: &str) -> Result<(), TestCaseError> {
    match text.parse::<Objective>() {
        Ok(objective) => {
            if let Objective::Blend(w) = objective {
                prop_assert!(w.is_finite() && (0.0..=1.0).contains(&w), "{text}: {w}");
            }
            let printed = objective.to_string();
            prop_assert_eq!(
                printed.parse::<Objective>().ok(),
                Some(objective),
                "{}",
                text
            );
        }
        Err(message) => {
            if !text.contains('\n') {
                prop_assert!(!message.contains('\n'), "{text:?}: {message}");
            }
            prop_assert!(
                message.len() <= text.len() + 120,
                "{text:?}: {} bytes: {message}",
                message.len()
            );
        }
    }
    Ok(())
}

fn weight_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>().prop_map(|w| w.to_string()),
        any::<f64>().prop_map(|w| format!("{w:e}")),
        (0.0f64..=1.0).prop_map(|w| w.to_string()),
        prop::sample::select(vec![
            "1e308", "1e-300", "-0", "-0.0", "NaN", "nan", "inf", "-inf", "infinity", "1e999",
            "0.5e1", "1.", ".5", "+0.5", "0x1", "", " 0.5", "0.5 ", "1_0",
        ])
        .prop_map(str::to_string),
        "[0-9.eE+-]{0,12}",
    ]
}

proptest! {
    #[test]
    fn arbitrary_text(text in "\\PC{0,24}") {
        check(&text)?;
    }

    #[test]
    fn blend_weights(w in weight_text()) {
        check(&format!("blend:{w}"))?;
    }
}

#[test]
fn known_inputs() {
    // Valid: the three spellings and the ends of the weight range.
    assert_eq!("min".parse::<Objective>(), Ok(Objective::Min));
    assert_eq!("max".parse::<Objective>(), Ok(Objective::Max));
    assert_eq!("blend:0".parse::<Objective>(), Ok(Objective::Blend(0.0)));
    assert_eq!("blend:1".parse::<Objective>(), Ok(Objective::Blend(1.0)));
    // A huge weight is refused and echoed as typed, not as 309 digits.
    let err = "blend:1e308".parse::<Objective>().unwrap_err();
    assert!(err.contains("1e308"), "{err}");
    assert!(err.len() < 100, "{err}");
    assert!("blend:NaN".parse::<Objective>().is_err());
    assert!("blend:inf".parse::<Objective>().is_err());
}
