"""Echo service: the raw gRPC baseline that benchmarks compare against."""
