"""Business logic of sites and crawls: plain functions that views, admin, tasks and commands call."""
