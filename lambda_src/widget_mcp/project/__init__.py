"""A project of its own built on the installed toolkit: its generator and its build steps."""
