-- reserve_generation calls this when its statement inserted a new receipt
-- but the monthly counter refused the charge: the error rolls the whole
-- statement back, so a receipt is never committed without its charge and a
-- concurrent identical request cannot be served as a free replay of it.
CREATE FUNCTION "ink_generation_refused"() RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'IQ001',
    MESSAGE = 'generation refused: monthly quota used up';
END
$$;
