logs event-forwarder-6f8b9c7d54-m2x7q -n events
