"""The Content Extract (MWIM paper §VIII.1): build one from a parsed page, write and read its binary file."""

from mwim.ce.codec import CEFormatError, CEVersionError, decode, encode, fingerprint_of
from mwim.ce.generate import content_extract_build
from mwim.ce.model import ContentExtract, Heading, Image, Reference, Token

__all__ = [
    "CEFormatError",
    "CEVersionError",
    "ContentExtract",
    "Heading",
    "Image",
    "Reference",
    "Token",
    "content_extract_build",
    "decode",
    "encode",
    "fingerprint_of",
]
