//! Stage 1: the raw TOML shapes, exactly as written in the catalogue files.
//! Nothing is validated here beyond what serde checks (unknown keys refused).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::CodegenError;

/// `calls.toml` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCatalogue {
    #[serde(default)]
    pub call: Vec<RawCall>,
}

/// One `[[call]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCall {
    pub name: String,
    pub class: String,
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub doc: Option<String>,
    #[serde(default)]
    pub retired: bool,
    #[serde(default)]
    pub fields: Vec<RawField>,
}

/// One payload field.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawField {
    pub name: String,
    pub ty: String,
    #[serde(default)]
    pub doc: Option<String>,
}

/// `coverage.toml` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCoverage {
    #[serde(default)]
    pub entry_points: BTreeMap<String, Vec<String>>,
}

pub fn parse_catalogue(text: &str) -> Result<RawCatalogue, CodegenError> {
    toml::from_str(text).map_err(|e| CodegenError::Toml {
        what: "call catalogue",
        message: e.to_string(),
    })
}

pub fn parse_coverage(text: &str) -> Result<RawCoverage, CodegenError> {
    toml::from_str(text).map_err(|e| CodegenError::Toml {
        what: "coverage map",
        message: e.to_string(),
    })
}
