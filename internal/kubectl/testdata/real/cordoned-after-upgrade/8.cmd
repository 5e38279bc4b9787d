describe pod checkout-5d8f7c6b9-m4kzt -n shop
