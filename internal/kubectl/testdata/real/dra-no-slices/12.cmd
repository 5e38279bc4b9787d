get deviceclasses
