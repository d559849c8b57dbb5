"""One module per CLI command group; each exposes ``add_parser(subparsers)``."""
