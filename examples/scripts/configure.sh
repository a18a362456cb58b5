#!/bin/sh
# Renders the web server configuration (used by examples/hello.yaml through get_file).
cat > /etc/site.conf <<CONF
name = $SITE
listen = $PORT
backends = $BACKENDS
admin_password = $ADMIN
CONF
