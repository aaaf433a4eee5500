"""Rules services: one pure engine per game behind one generic gRPC adapter."""
