-- Sign-ins under way are capped per institution and per client network as well as platform-wide
-- (docs/sign-in.md, "Limits on starting a sign-in"), so a few dozen addresses cannot fill the
-- platform cap and make every institution's sign-in answer 503.
--
-- client_network: the /24 (IPv4) or /64 (IPv6) the sign-in was started from, never the whole
-- address; the row is deleted when the sign-in completes and swept ten minutes after its start.
-- Rows started before this migration have none and count toward the other caps only.
ALTER TABLE sign_in_flows ADD COLUMN client_network text;
-- Each cap counts the live flows of one institution or one network, stopping at the cap.
CREATE INDEX sign_in_flows_institution_idx ON sign_in_flows (institution_id, expires_at);
CREATE INDEX sign_in_flows_network_idx ON sign_in_flows (client_network, expires_at);
