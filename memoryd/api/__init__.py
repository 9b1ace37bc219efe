"""memoryd's gRPC face: the two servicers and proto ⇄ domain conversion.

Protobuf and grpc stop here (and at memoryd.client and memoryctl, which are clients)."""
