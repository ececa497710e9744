"""The conversion pipeline, its cache, and the public API (convert, converted_call, ...)."""
