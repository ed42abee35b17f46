//! Generated GL entry-point exports and the GetProcAddress table.
