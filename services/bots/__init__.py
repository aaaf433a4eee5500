"""Bot players: policies that pick among legal commands, acting through the gRPC API."""
