//! One line on standard error when connsim itself was compiled without optimization: cargo
//! ignores a dependency's profiles, so a connector crate without the profile lines of the
//! README runs every seed several times slower and would not know why.

use std::sync::Once;

/// The optimization level connsim was compiled with (from its build script).
const OPT_LEVEL: Option<&str> = option_env!("CONNSIM_OPT_LEVEL");

/// The warning for a build at `opt_level`, if it is unoptimized.
fn warning(opt_level: Option<&str>) -> Option<String> {
    (opt_level == Some("0")).then(|| {
        "connsim: compiled without optimization, so every seed runs several times slower; add to your \
         Cargo.toml: [profile.dev.package.\"*\"] opt-level = 2 and [profile.dev] opt-level = 1 (see connsim's \
         README, \"Your own connector crate\")"
            .to_string()
    })
}

/// Prints the warning once per process, if connsim was compiled unoptimized.
pub(crate) fn warn_if_unoptimized() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Some(w) = warning(OPT_LEVEL) {
            eprintln!("{w}");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_unoptimized_build_warns_and_the_warning_names_the_lines_to_add() {
        let w = warning(Some("0")).expect("opt-level 0 warns");
        assert!(w.contains("[profile.dev.package.\"*\"] opt-level = 2") && !w.contains('\n'), "{w}");
        for level in [Some("1"), Some("2"), Some("3"), Some("s"), None] {
            assert_eq!(warning(level), None, "{level:?}");
        }
        // The build script passed the level (this workspace's profiles optimize connsim).
        assert!(OPT_LEVEL.is_some_and(|l| l != "0"), "{OPT_LEVEL:?}");
    }
}
