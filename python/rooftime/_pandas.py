"""pandas where it is installed, else None: the package's tables are then lists of dicts. The one
place that asks, read by every module that returns a table (core, _gate, across)."""
try:
    import pandas as pd
except ImportError:  # plain lists of dicts without pandas
    pd = None
