"""Models: the ChatModel protocol, the llama-cpp backend, dialects, the catalog."""
