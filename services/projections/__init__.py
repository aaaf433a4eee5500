"""Projections: pure folds of the event log into views and the audit log, and their runners."""
