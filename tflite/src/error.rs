//! The crate's one error type.

use std::fmt;

/// Why a model could not be read, checked or planned.
///
/// Its `Display` is meant for a person reading a compiler error: the file's display name (the
/// one the caller passed in), where in the model the fault is (an operator with its op name,
/// a tensor with its name, ...) and what is wrong, for example
/// `speech.tflite: operator 2 (SQUARED_DIFFERENCE): shaped does not support this operator`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    file: String,
    location: Location,
    kind: ErrorKind,
    message: String,
}

/// What sort of fault an [`Error`] reports, for callers that react differently to each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes are not a TFLite flatbuffer at all: empty, another file identifier, or a root
    /// table the reader cannot follow.
    NotTflite,
    /// A TFLite flatbuffer whose structure is broken past its root (an offset out of the file,
    /// a bad vtable, invalid UTF-8 in a name, ...): a corrupt or truncated file.
    Malformed,
    /// A readable model that contradicts itself: an index out of range, constant data whose
    /// length is not its tensor's size, an operator's shapes that do not agree, a shape whose
    /// size overflows.
    Invalid,
    /// A valid model that uses something shaped does not import: an operator, an element type,
    /// a dynamic shape, several subgraphs, ...
    Unsupported,
}

/// Where in the model an [`Error`] is, as its `Display` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// The model as a whole (or the file).
    Model,
    /// An operator: its index in execution order and its op name (`CONV_2D`,
    /// `CUSTOM(name)`, ...; empty when the name could not be read).
    Operator {
        /// Index in the subgraph's operator list.
        index: usize,
        /// The operator's name as TFLite spells it.
        name: String,
    },
    /// A tensor: its index in the subgraph and its name (possibly empty).
    Tensor {
        /// Index in the subgraph's tensor list.
        index: usize,
        /// The tensor's name in the file.
        name: String,
    },
    /// An entry of the model's operator code table.
    OperatorCode {
        /// Index in the model's operator code list.
        index: usize,
    },
    /// An entry of the model's buffer table.
    Buffer {
        /// Index in the model's buffer list.
        index: usize,
    },
}

impl Error {
    pub(crate) fn new(
        file: &str,
        location: Location,
        kind: ErrorKind,
        message: impl Into<String>,
    ) -> Self {
        Error {
            file: file.to_owned(),
            location,
            kind,
            message: message.into(),
        }
    }

    /// The file's display name, as the caller passed it in.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Where in the model the fault is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// What sort of fault this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// What is wrong, without the file name and location.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Model => Ok(()),
            Location::Operator { index, name } if name.is_empty() => {
                write!(f, "operator {index}")
            }
            Location::Operator { index, name } => write!(f, "operator {index} ({name})"),
            Location::Tensor { index, name } if name.is_empty() => write!(f, "tensor {index}"),
            Location::Tensor { index, name } => write!(f, "tensor {index} ({name})"),
            Location::OperatorCode { index } => write!(f, "operator code {index}"),
            Location::Buffer { index } => write!(f, "buffer {index}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Location::Model => write!(f, "{}: {}", self.file, self.message),
            ref at => write!(f, "{}: {}: {}", self.file, at, self.message),
        }
    }
}

impl std::error::Error for Error {}

/// A fault before the file name and location are attached: what the reading and checking
/// functions return, their callers knowing where they are.
#[derive(Debug)]
pub(crate) struct Fault {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
}

impl Fault {
    pub(crate) fn invalid(message: impl Into<String>) -> Fault {
        Fault {
            kind: ErrorKind::Invalid,
            message: message.into(),
        }
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> Fault {
        Fault {
            kind: ErrorKind::Unsupported,
            message: message.into(),
        }
    }

    pub(crate) fn at(self, file: &str, location: Location) -> Error {
        Error::new(file, location, self.kind, self.message)
    }
}

impl From<planus::Error> for Fault {
    fn from(e: planus::Error) -> Fault {
        Fault {
            kind: ErrorKind::Malformed,
            message: format!("malformed flatbuffer: {e}"),
        }
    }
}
