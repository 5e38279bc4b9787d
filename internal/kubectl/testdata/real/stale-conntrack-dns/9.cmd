describe replicaset event-forwarder-6f8b9c7d54 -n events
