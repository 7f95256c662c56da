# Makes the repository root importable for pytest (textkit is imported from here).
