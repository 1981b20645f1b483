//! Custom layouts by name (`polyflake.custom_layouts`): the setting's text,
//! read once per process by polyflake-pg-layouts (postgres/layouts), which
//! holds the rules and their tests.

use std::sync::OnceLock;

use polyflake_core::Error;
pub(crate) use polyflake_pg_layouts::Named;

/// Parses the setting's text (`None`: unset) once per process.
pub(crate) fn parsed(text: Option<String>) -> Result<&'static Named, Error> {
    static PARSED: OnceLock<Result<Named, Error>> = OnceLock::new();
    PARSED
        .get_or_init(|| text.map_or(Ok(Vec::new()), |text| polyflake_pg_layouts::parse(&text)))
        .as_ref()
        .map_err(Clone::clone)
}
