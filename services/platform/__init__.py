"""Shared kernel: event envelope, stores, streams, gRPC helpers, auth."""
