"""gRPC plumbing: server assembly, error mapping, auth and metrics per RPC."""
