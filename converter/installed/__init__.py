"""What the installed runtimes can do: onnxruntime's build, its providers, the opsets."""
