//! The README's embedding example is the `throng` crate's: the façade's
//! README is its crate documentation, so its example is compiled by the
//! doctests (and shown on docs.rs); the repository's README shows the same
//! program, and this test keeps the two equal.

use throng_tests::repo_root;

/// The first ```` ```rust,no_run ```` block of a Markdown file.
fn first_rust_block(path: &std::path::Path) -> String {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let start = text
        .find("```rust,no_run\n")
        .unwrap_or_else(|| panic!("{} has no ```rust,no_run block", path.display()))
        + "```rust,no_run\n".len();
    let len = text[start..]
        .find("```")
        .unwrap_or_else(|| panic!("{}: the rust block is not closed", path.display()));
    text[start..start + len].to_owned()
}

#[test]
fn the_readme_embedding_example_is_the_facades_compiled_one() {
    let root = repo_root();
    let readme = first_rust_block(&root.join("README.md"));
    let facade = first_rust_block(&root.join("crates/throng/README.md"));
    if readme != facade {
        let line = readme
            .lines()
            .zip(facade.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(readme.lines().count().min(facade.lines().count()));
        panic!(
            "README.md's embedding example differs from crates/throng/README.md's (compiled as a doctest) at line {}:\n  README.md:               {:?}\n  crates/throng/README.md: {:?}",
            line + 1,
            readme.lines().nth(line),
            facade.lines().nth(line)
        );
    }
}
