"""The exceptions mallat raises: one per kind of codec error (common/status.h's
ErrorCode), each also a subclass of the built-in exception a Python caller
expects, so ``except ValueError`` catches bad input and ``except mallat.Error``
catches everything the codec refuses. The message is the codec's own: what was
wrong and where (a marker and its byte offset, a sample and its position)."""


class Error(Exception):
    """Anything the codec refused."""


class InvalidArgumentError(Error, ValueError):
    """An argument out of range (a rate target out of order, bits= too large,
    a region outside the image)."""


class CorruptDataError(Error, ValueError):
    """The bytes are not a JPEG 2000 codestream or JP2 file, or are damaged."""


class UnsupportedError(Error, ValueError):
    """Legal input that this build cannot code (for example more than 16 bits
    to the encoder, components above 31 bits, a subband needing more
    bit-planes than the block coder holds)."""


class ResourceLimitError(Error, MemoryError):
    """The input asks for more memory than allowed (a header claiming a huge
    image): refused before allocating."""


class FileError(Error, OSError):
    """A file could not be read or written."""


class MissingFileError(FileError, FileNotFoundError):
    """A file to read (or the folder of one to write) does not exist: caught
    by ``except mallat.FileError`` and by ``except FileNotFoundError``."""


class DeviceError(Error, RuntimeError):
    """A CUDA call failed or no device is present."""


class InternalError(Error, RuntimeError):
    """A bug in mallat: please report it with the input."""


class DecodeWarning(UserWarning):
    """Something the decoder tolerated (a truncated packet, a missing EOC):
    the image is what could be decoded."""
