"""The crawl engine's pure parts: URL normalization and scope, HTML parsing, configuration, batch fetching."""
