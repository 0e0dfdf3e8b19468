//! Progress on a terminal: an `indicatif` bar on standard error, hidden when standard error
//! is not a terminal (CI logs get only the table or the JSON).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar over `len` targets; its message names the target and case running.
pub fn bar(len: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("[{pos}/{len}] {elapsed_precise} {wide_msg}").expect("a valid template");
    bar.set_style(style);
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
