"""A git-native eval harness for LLM and RAG assistants."""

__version__ = "0.1.0"
