//! The JSON types a `type` keyword names.

/// The JSON types a `type` keyword allows: one bit each, so a value's type
/// is checked without comparing names (named in JSON Schema's order for
/// messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    const NAMES: [&'static str; 7] = [
        "null", "boolean", "object", "array", "number", "string", "integer",
    ];
    /// No type at all, to add types to.
    pub(in crate::compile) const NONE: Types = Types(0);
    pub(crate) const NULL: Types = Types(1);
    pub(crate) const BOOLEAN: Types = Types(1 << 1);
    pub(crate) const OBJECT: Types = Types(1 << 2);
    pub(crate) const ARRAY: Types = Types(1 << 3);
    pub(crate) const NUMBER: Types = Types(1 << 4);
    pub(crate) const STRING: Types = Types(1 << 5);
    pub(crate) const INTEGER: Types = Types(1 << 6);

    /// The type called `name`, if JSON Schema has one.
    pub(in crate::compile) fn named(name: &str) -> Option<Types> {
        Self::NAMES
            .iter()
            .position(|&known| known == name)
            .map(|bit| Types(1 << bit))
    }

    /// These types and `other`'s.
    pub(in crate::compile) fn with(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    /// Whether every type of `other` is among these.
    pub(crate) fn has(self, other: Types) -> bool {
        self.0 & other.0 == other.0
    }

    /// The names of these types.
    pub(crate) fn names(self) -> Vec<&'static str> {
        (0..Self::NAMES.len())
            .filter(|bit| self.0 & (1 << bit) != 0)
            .map(|bit| Self::NAMES[bit])
            .collect()
    }
}
