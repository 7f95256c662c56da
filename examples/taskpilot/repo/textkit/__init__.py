"""textkit: small text helpers (the TaskPilot demo repository)."""
from textkit.case import camel_to_snake
from textkit.count import word_count
from textkit.slug import slugify
from textkit.wrap import truncate

__all__ = ["camel_to_snake", "slugify", "truncate", "word_count"]
