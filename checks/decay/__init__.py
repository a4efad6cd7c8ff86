"""Decay: how close every page is to dead ends (Bar-Yossef et al. 2004, §4), and which broken links to fix first."""
