/* chain: placeholder */
