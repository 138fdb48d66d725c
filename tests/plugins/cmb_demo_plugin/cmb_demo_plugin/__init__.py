"""A third-party cmb plugin: the `demo` backend, the `demo-greeter` agent and the `demo.*` check family."""
