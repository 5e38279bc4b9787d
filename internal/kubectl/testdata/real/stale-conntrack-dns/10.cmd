describe deployment event-forwarder -n events
