describe node ip-172-20-33-120.eu-west-2.compute.internal
